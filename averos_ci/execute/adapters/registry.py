"""The one adapter registry: the ``averos_ci.adapters`` entry-point group, nothing else.

The built-in adapters are registered the same way as a third party's (``pyproject.toml``):
an adapter is one folder and one entry point. The entry point names a factory called with
the ``adapterOptions`` mapping — usually the adapter's class, whose hooks
(:class:`~averos_ci.execute.adapters.contract.AdapterBase`) the core asks by name of hook,
never by name of adapter.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from importlib.metadata import EntryPoint, entry_points
from typing import Any

from averos_ci._suggest import suggest
from averos_ci.errors import ConfigError, InputError
from averos_ci.execute.adapters.contract import AdapterBase
from averos_ci.execute.contracts import AdapterFactory, ExecutionAdapter

ENTRY_POINT_GROUP = "averos_ci.adapters"
# The adapter a config that names none runs (as Averos): the one place the default is said.
DEFAULT_ADAPTER = "angular-schematics"


class UnknownAdapter(InputError):
    """No ``averos_ci.adapters`` entry point has this name."""


_installed: dict[tuple[str, ...], dict[str, EntryPoint]] = {}


def _entry_points() -> dict[str, EntryPoint]:
    """The adapters by name. Reading every distribution's metadata costs ~7 ms and a plan
    asks several times: it is read once per ``sys.path`` (what decides the distributions
    seen)."""
    key = tuple(sys.path)
    if key not in _installed:
        _installed[key] = {ep.name: ep for ep in entry_points(group=ENTRY_POINT_GROUP)}
    return _installed[key]


def available_adapters() -> list[str]:
    return sorted(_entry_points())


def adapter_name(name: str | None) -> str:
    """The adapter that runs for a config's ``adapter``: ``None`` (the config names none) is
    :data:`DEFAULT_ADAPTER`."""
    return DEFAULT_ADAPTER if name is None else name


def adapter_factory(name: str | None) -> AdapterFactory:
    """The factory entry point ``name`` names (``None``: the default adapter's); an unknown
    name is an :class:`UnknownAdapter` saying the closest known one, a factory that cannot be
    imported an InputError."""
    name = adapter_name(name)
    eps = _entry_points()
    if name not in eps:
        near = suggest(name, eps)
        available = f"available adapters: {', '.join(sorted(eps))}"
        raise UnknownAdapter(
            f"unknown adapter {name!r}", hint=f"{near} ({available})" if near else available
        )
    try:
        factory: AdapterFactory = eps[name].load()
    except (ImportError, AttributeError) as exc:
        raise InputError(
            f"adapter {name!r} cannot be loaded: {exc}",
            hint="reinstall the package that provides it",
        ) from None
    return factory


def get_adapter(name: str | None, options: Mapping[str, Any] | None = None) -> ExecutionAdapter:
    """Build adapter ``name`` (``None``: the default) from its ``adapterOptions``; unknown
    names are an InputError."""
    adapter = adapter_factory(name)(dict(options or {}))
    if not isinstance(adapter, ExecutionAdapter):
        raise ConfigError(f"adapter {adapter_name(name)!r} does not implement ExecutionAdapter")
    return adapter


def class_hook(name: str | None, hook: str) -> Any:
    """Class-level hook ``hook`` of adapter ``name`` (an :class:`AdapterBase` method name):
    the factory's own, else the default. An adapter that cannot be loaded here has the
    defaults (the run says why it cannot be built)."""
    try:
        factory: Any = adapter_factory(name)
    except InputError:
        factory = None
    found = getattr(factory, hook, None)
    return found if callable(found) else getattr(AdapterBase, hook)


def class_fact(name: str | None, fact: str) -> Any:
    """Class-level value ``fact`` of adapter ``name`` (e.g. ``generates``), else the default."""
    try:
        factory: Any = adapter_factory(name)
    except InputError:
        factory = None
    return getattr(factory, fact, getattr(AdapterBase, fact))


def instance_hook(adapter: object, hook: str) -> Any:
    """Hook or value ``hook`` of a built adapter, else :class:`AdapterBase`'s default."""
    if hasattr(adapter, hook):
        return getattr(adapter, hook)
    default: Any = getattr(AdapterBase, hook)  # a method or a property: bound to ``adapter``
    return default.__get__(adapter)
