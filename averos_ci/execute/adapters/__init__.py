"""Adapter registry, fed by the ``averos_ci.adapters`` entry-point group."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping
from importlib.metadata import EntryPoint, entry_points
from typing import TYPE_CHECKING, Any

from averos_ci._suggest import suggest
from averos_ci.errors import AverosCIError, ConfigError, InputError
from averos_ci.execute.contracts import AdapterFactory, ExecutionAdapter, NotApplied
from averos_ci.plan.model import PlanNode

if TYPE_CHECKING:
    from averos_ci.config import RunConfig

ENTRY_POINT_GROUP = "averos_ci.adapters"


class UnknownAdapter(InputError):
    """No built-in adapter and no ``averos_ci.adapters`` entry point has this name."""


_BUILTIN = {
    "mock": "averos_ci.execute.adapters.mock:MockAdapter",
    "node-module": "averos_ci.execute.adapters.node_module:NodeModuleAdapter",
}

__all__ = [
    "ENTRY_POINT_GROUP",
    "UnknownAdapter",
    "adapter_options",
    "available_adapters",
    "get_adapter",
    "identity_options",
    "predict_not_applied",
]


_installed: dict[tuple[str, ...], tuple[EntryPoint, ...]] = {}


def _entry_points() -> dict[str, EntryPoint]:
    """The adapters by name: the built-in ones, then the installed entry points. Reading every
    distribution's metadata costs ~7 ms and a plan asks several times: it is read once per
    ``sys.path`` (what decides the distributions seen)."""
    found = {
        name: EntryPoint(name=name, value=value, group=ENTRY_POINT_GROUP)
        for name, value in _BUILTIN.items()
    }
    key = tuple(sys.path)
    if key not in _installed:
        _installed[key] = tuple(entry_points(group=ENTRY_POINT_GROUP))
    for ep in _installed[key]:
        found[ep.name] = ep
    return found


def available_adapters() -> list[str]:
    return sorted(_entry_points())


def get_adapter(name: str, options: Mapping[str, Any] | None = None) -> ExecutionAdapter:
    """Build adapter ``name`` from its ``adapterOptions``; unknown names are an InputError."""
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
    adapter = factory(dict(options or {}))
    if not isinstance(adapter, ExecutionAdapter):
        raise ConfigError(f"adapter {name!r} does not implement ExecutionAdapter")
    return adapter


def adapter_options(config: RunConfig) -> dict[str, Any]:
    """``adapterOptions`` completed from the config: Averos's top-level ``averosVersion`` /
    ``localTgz`` for the Angular adapter (``adapterOptions`` wins when both are set), and the
    config file's folder, against which ``node-module`` resolves (and confines) its module."""
    options = dict(config.adapter_options)
    if config.adapter == "angular-schematics":
        if config.averos_version is not None:
            options.setdefault("averosVersion", config.averos_version)
        if config.local_tgz is not None:
            options.setdefault("localTgz", str(config.local_tgz))
    elif config.adapter == "node-module":
        options["configDir"] = str(config.base_dir)
    return options


def identity_options(name: str, options: Mapping[str, Any]) -> dict[str, Any]:
    """The part of ``options`` that changes what adapter ``name`` produces: what a plan's
    identity (and so an approval) covers. All of them, unless the adapter's class narrows it
    with a static ``identity_options(options)`` hook (the mock's knobs change no result)."""
    ep = _entry_points().get(name)
    hook = None
    if ep is not None:
        try:
            hook = getattr(ep.load(), "identity_options", None)
        except Exception:  # not loadable here: planning covers every option
            hook = None
    return dict(hook(dict(options))) if callable(hook) else dict(options)


def predict_not_applied(
    name: str, options: Mapping[str, Any], nodes: Iterable[PlanNode]
) -> list[tuple[str, NotApplied]]:
    """(node id, setting) pairs adapter ``name`` says will not take effect: its optional
    ``not_applied(node)`` method. An adapter that cannot be built here predicts nothing (the
    run reports why it cannot be built)."""
    try:
        adapter = get_adapter(name, options)
    except (AverosCIError, ValueError, OSError):
        return []
    hook = getattr(adapter, "not_applied", None)
    if not callable(hook):
        return []
    return [(node.id, found) for node in nodes for found in hook(node)]
