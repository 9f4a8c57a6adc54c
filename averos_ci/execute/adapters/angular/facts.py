"""What the core asks of the ``angular-schematics`` adapter besides running nodes (its hooks
of :class:`~averos_ci.execute.adapters.contract.AdapterBase`)."""

from __future__ import annotations

import contextlib
import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from averos_ci.execute.adapters.contract import AdapterBase, NodeToolchain

from .options import cache_root, parse_options

if TYPE_CHECKING:
    from averos_ci.config import RunConfig


class AngularFacts(AdapterBase):
    @classmethod
    def config_options(cls, options: Mapping[str, Any], config: RunConfig) -> dict[str, Any]:
        """Averos's top-level ``averosVersion`` / ``localTgz`` (``adapterOptions`` wins when
        both are set)."""
        found = dict(options)
        if config.averos_version is not None:
            found.setdefault("averosVersion", config.averos_version)
        if config.local_tgz is not None:
            found.setdefault("localTgz", str(config.local_tgz))
        return found

    @classmethod
    def next_step(cls, *, workspace_root: Path, config: Path | None) -> str | None:
        """Where the generated Angular application is and the command that shows it running
        (``config`` as the user typed it)."""
        where = workspace_root
        with contextlib.suppress(ValueError):
            where = workspace_root.relative_to(Path.cwd())
        named = f" --config {shlex.quote(str(config))}" if config is not None else ""
        return (
            f"application: {where}/ (Angular workspace); see it running: averos-ci preview{named}"
        )

    @classmethod
    def node_toolchain(cls, options: Mapping[str, Any]) -> NodeToolchain | None:
        parsed = parse_options(options)
        return NodeToolchain(cache_root(parsed), parsed.min_node_version)

    @property
    def regenerates(self) -> bool:
        """Runs regenerate and merge (averos_ci.execute.regen): the nodes run in a scratch
        workspace from nothing (a clean generation), merged three-way into the user's."""
        return True
