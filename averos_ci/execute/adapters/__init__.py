"""Adapters: the registry (``averos_ci.adapters`` entry points) and the adapters' facts.

Each function here asks the configured adapter one of its hooks
(:class:`~averos_ci.execute.adapters.contract.AdapterBase`); none knows an adapter by name.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from averos_ci.errors import AverosCIError
from averos_ci.execute.adapters._options import AdapterOptionsError
from averos_ci.execute.adapters.contract import AdapterBase, NodeToolchain, Reader
from averos_ci.execute.adapters.registry import (
    DEFAULT_ADAPTER,
    ENTRY_POINT_GROUP,
    UnknownAdapter,
    adapter_factory,
    adapter_name,
    available_adapters,
    class_fact,
    class_hook,
    get_adapter,
    instance_hook,
)
from averos_ci.execute.contracts import NotApplied
from averos_ci.plan.model import PlanNode

if TYPE_CHECKING:
    from averos_ci.config import RunConfig

__all__ = [
    "DEFAULT_ADAPTER",
    "ENTRY_POINT_GROUP",
    "AdapterBase",
    "AdapterOptionsError",
    "NodeToolchain",
    "UnknownAdapter",
    "adapter_factory",
    "adapter_generates",
    "adapter_name",
    "adapter_notice",
    "adapter_options",
    "available_adapters",
    "get_adapter",
    "identity_options",
    "loaded_files",
    "next_step",
    "node_toolchain",
    "predict_not_applied",
    "with_adapter_named",
]


def adapter_options(config: RunConfig) -> dict[str, Any]:
    """``config.adapter_options`` completed from the rest of the config by the adapter
    (its ``config_options``): what builds it and what the plan's identity starts from."""
    hook = class_hook(config.adapter, "config_options")
    return dict(hook(dict(config.adapter_options), config))


def with_adapter_named(config: RunConfig) -> RunConfig:
    """``config`` naming the adapter that runs (a config naming none runs the default): what
    an ``--adapter`` override is compared with, so the file's options stay with their adapter."""
    return replace(config, adapter=adapter_name(config.adapter))


def identity_options(name: str | None, options: Mapping[str, Any]) -> dict[str, Any]:
    """The part of ``options`` that changes what adapter ``name`` produces: what a plan's
    identity (and so an approval) covers (its ``identity_options``; default: all)."""
    return dict(class_hook(name, "identity_options")(dict(options)))


def loaded_files(
    name: str | None, options: Mapping[str, Any], *, base_dir: Path, read: Reader
) -> dict[str, str]:
    """The repository files adapter ``name`` loads and runs, by content (its
    ``loaded_files``), read through ``read``."""
    return dict(class_hook(name, "loaded_files")(options, base_dir=base_dir, read=read))


def predict_not_applied(
    name: str | None, options: Mapping[str, Any], nodes: Iterable[PlanNode]
) -> list[tuple[str, NotApplied]]:
    """(node id, setting) pairs adapter ``name`` says will not take effect: its optional
    ``not_applied(node)`` method. An adapter that cannot be built here predicts nothing (the
    run reports why it cannot be built)."""
    try:
        adapter = get_adapter(name, options)
    except (AverosCIError, ValueError, OSError):
        return []
    hook = instance_hook(adapter, "not_applied")
    return [(node.id, found) for node in nodes for found in hook(node)]


def adapter_notice(adapter: object) -> str | None:
    """What the built ``adapter`` says before a run and atop its summary (its ``notice``)."""
    notice = instance_hook(adapter, "notice")
    return notice if isinstance(notice, str) else None


def adapter_generates(name: str | None) -> bool:
    """Whether runs of adapter ``name`` write an application (its ``generates``)."""
    return bool(class_fact(name, "generates"))


def next_step(name: str | None, *, workspace_root: Path, config: Path | None) -> str | None:
    """Adapter ``name``'s last console line after a successful run (its ``next_step``)."""
    found = class_hook(name, "next_step")(workspace_root=workspace_root, config=config)
    return found if isinstance(found, str) else None


def node_toolchain(name: str | None, options: Mapping[str, Any]) -> NodeToolchain | None:
    """The Node.js toolchain adapter ``name`` uses with ``options`` (its ``node_toolchain``)."""
    found = class_hook(name, "node_toolchain")(dict(options))
    return found if isinstance(found, NodeToolchain) else None
