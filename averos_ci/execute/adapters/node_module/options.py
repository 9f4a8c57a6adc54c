"""``adapterOptions`` of the ``node-module`` adapter, and where its module may live."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import Field

from averos_ci._model import WireModel
from averos_ci.errors import ConfigError
from averos_ci.execute.adapters._options import parse_adapter_options

MODULE_SUFFIXES = (".js", ".mjs", ".cjs")
HINT = "see docs/reference/adapters.md#javascript-and-typescript-adapters-node-module"


class NodeModuleOptions(WireModel):
    module: str = Field(min_length=1)  # relative to the config file's folder, and inside it
    export: str = Field(default="default", min_length=1)
    node: str = "node"  # the Node.js executable (a name on PATH or a path)
    call_timeout_ms: int = Field(default=600_000, ge=1, le=86_400_000)  # one method call
    start_timeout_ms: int = Field(default=60_000, ge=1, le=3_600_000)  # loading the module
    # Set by averos-ci to the folder of averos.config.json (the CWD without a config file).
    config_dir: str | None = None


def parse_options(options: Mapping[str, Any]) -> NodeModuleOptions:
    return parse_adapter_options(NodeModuleOptions, options, adapter="node-module", hint=HINT)


def resolve_module(options: NodeModuleOptions) -> Path:
    """The module's real path: relative to the config's folder, and confined to it.

    The module runs with the user's rights, so the folder that holds the config (the
    project, in CI the reviewed repository) must also hold the code it runs: no ``..``,
    no absolute path elsewhere, no symbolic link leading out.
    """
    base = Path(options.config_dir or ".").resolve()
    candidate = (base / options.module).resolve()
    if not candidate.is_relative_to(base):
        raise ConfigError(
            f"adapterOptions.module {options.module!r} resolves to {candidate}, outside "
            f"{base} (the folder of the config file)",
            hint="put the adapter module in the config file's folder or below it",
        )
    if candidate.suffix not in MODULE_SUFFIXES:
        raise ConfigError(
            f"adapterOptions.module {options.module!r} is not a JavaScript file "
            f"({', '.join(MODULE_SUFFIXES)})",
            hint="compile TypeScript adapters with tsc and name the emitted .js/.mjs file",
        )
    if not candidate.is_file():
        raise ConfigError(
            f"adapterOptions.module {options.module!r}: no such file {candidate}",
            hint="paths are relative to the config file's folder; build the module first",
        )
    return candidate
