"""What discovery needs of each ``averos.config.json``: its name setting and the folders it
generates into, as resolved absolute POSIX strings.

``config.load_config`` is the one loader and stays the judge of every file: a config is parsed
here with the same document parser and the same pydantic model, and anything out of the
ordinary (an unknown key, a value in Averos's string form, ``sensitive`` rules, any error)
is handed to ``load_config``, which raises or warns exactly as before. The ordinary file
skips only the work discovery does not use: a ``RunConfig`` built twice with every path
resolved through ``pathlib`` (about 200 us a config; 1 s of a 5,000-project repository).
"""

from __future__ import annotations

import os
import posixpath
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from averos_ci.config import CONFIG_MAX_BYTES, KNOWN_KEYS, ConfigFile, RunConfig, load_config
from averos_ci.source import SourceError, parse_document

# The RunConfig defaults of the folders discovery reads (config.RunConfig).
_DEFAULTS = {
    "workspace_root": "app",
    "manifest_path": "averos.manifest.yaml",
    "logs_dir": ".averos/logs",
    "state_path": ".averos/state.json",
}
# Keys whose values load_config rewrites or checks beyond the model: left to it.
_SLOW_KEYS = frozenset({"sensitive", "localTgz"})


@dataclass(frozen=True)
class ConfigView:
    config_path: str  # resolved, absolute
    base_dir: str  # the config's folder
    workspace_root: str
    manifest_path: str
    logs_dir: str
    state_path: str
    github: dict[str, Any]


def config_view(path: str) -> ConfigView:
    """The view of the config at the resolved absolute ``path``."""
    view = _ordinary(path)
    return view if view is not None else _from_run_config(load_config(path))


def _ordinary(path: str) -> ConfigView | None:
    # Discovery has seen a regular file: read it once (load_document would stat it twice).
    try:
        with open(path, "rb") as f:
            raw = f.read(CONFIG_MAX_BYTES + 1)
        if len(raw) > CONFIG_MAX_BYTES:
            return None
        data = parse_document(raw, path=Path(path), what="config file").data
    except (OSError, SourceError):
        return None
    if not isinstance(data, dict) or not KNOWN_KEYS.issuperset(data) or _SLOW_KEYS & data.keys():
        return None
    try:
        parsed = ConfigFile.model_validate(data)
    except ValidationError:
        return None
    base = posixpath.dirname(path)
    folders = {}
    for name, default in _DEFAULTS.items():
        value = getattr(parsed, name)
        # as load_config: a configured path is resolved, a default only joined to the folder
        folders[name] = posixpath.join(base, default) if value is None else _resolve(base, value)
    return ConfigView(config_path=path, base_dir=base, github=parsed.github or {}, **folders)


def _resolve(base: str, value: str) -> str:
    """``os.path.realpath(base/value)`` for a ``base`` already resolved: only the components
    of ``value`` are looked at (realpath would ``lstat`` every folder of ``base`` again)."""
    if value.startswith("/"):
        return os.path.realpath(value)
    path = base
    for part in value.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            path = posixpath.dirname(path)
            continue
        path = posixpath.join(path, part)
        try:
            is_link = stat.S_ISLNK(os.lstat(path).st_mode)
        except OSError:  # as realpath: a missing component is taken as written
            is_link = False
        if is_link:
            return os.path.realpath(posixpath.join(base, value))
    return path


def _from_run_config(cfg: RunConfig) -> ConfigView:
    return ConfigView(
        config_path=str(cfg.config_path),
        base_dir=str(cfg.base_dir),
        workspace_root=str(cfg.workspace_root),
        manifest_path=str(cfg.manifest_path),
        logs_dir=str(cfg.logs_dir),
        state_path=str(cfg.state_path),
        github=cfg.github,
    )
