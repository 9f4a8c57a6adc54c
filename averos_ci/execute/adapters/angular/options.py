"""``adapterOptions`` of the ``angular-schematics`` adapter (camelCase in averos.config.json)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from enum import StrEnum
from pathlib import Path
from typing import Any

from pydantic import Field

from averos_ci._model import WireModel
from averos_ci.execute.adapters._options import parse_adapter_options


class Runner(StrEnum):
    BATCHED = "batched"  # one long-lived Node driver for the whole run (default)
    PER_PROCESS = "per-process"  # one `ng generate` per node, as Averos itself runs


class AngularOptions(WireModel):
    collection: str = "@wiforge/averos"
    angular_cli_version: str = "14"
    averos_version: str = "1.4.1"
    types_node_version: str = "16"
    runner: Runner = Runner.BATCHED
    # Bootstrap by copying a cached template workspace (node_modules hard-linked): seconds
    # once the template for these versions and this app name is built. False: build in place.
    template_cache: bool = True
    cache_dir: str | None = None  # default: $AVEROS_CI_CACHE_DIR or ~/.cache/averos-ci
    install_dependencies: bool = True  # `npm ci` in a workspace that lacks node_modules
    builtin_edits: bool = True  # False: operations without a schematic fail as UNSUPPORTED
    min_node_version: str = Field(default="14.15.0", pattern=r"^\d{1,4}\.\d{1,4}\.\d{1,4}$")
    registry: str | None = None  # npm registry; default: npm's own configuration
    node_timeout_s: float = Field(
        default=600.0, gt=0, le=86_400
    )  # one schematic / one driver request
    install_timeout_s: float = Field(
        default=1800.0, gt=0, le=86_400
    )  # ng new / ng add / npm install
    style: str = "scss"
    # An `npm pack` tarball of the collection, installed with no registry access (Averos's
    # localTgz; set from the config's top-level key). Its version replaces averosVersion.
    local_tgz: str | None = None


def parse_options(options: Mapping[str, Any]) -> AngularOptions:
    return parse_adapter_options(
        AngularOptions,
        options,
        adapter="angular-schematics",
        hint="see docs/reference/adapters.md#adapteroptions",
    )


def cache_root(options: AngularOptions | None = None) -> Path:
    if options is not None and options.cache_dir:
        return Path(options.cache_dir).expanduser().resolve()
    env = os.environ.get("AVEROS_CI_CACHE_DIR")
    if env:
        return Path(env).expanduser().resolve()
    xdg = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return (Path(xdg) / "averos-ci").resolve()
