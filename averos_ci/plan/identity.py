"""What a plan's identity covers besides the manifest and the base state: the execution
settings that change *what runs* (the adapter, its options, where it writes, the listeners it
loads, development mode). They are a small ``execution`` part of the plan JSON and so part of
the planHash: an approval of a plan never carries over to another adapter, registry,
collection or workspace. How the run is paced (``mode``, ``maxAttempts``, ``timeoutMs``,
``concurrency``) and where files are kept are left out: they change no result.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from averos_ci.config import RunConfig


def execution_identity(config: RunConfig) -> dict[str, Any]:
    """The ``execution`` part of the plan for ``config`` (paths relative to the config's
    folder, so the same repository plans to the same hash in every checkout)."""
    return {
        "adapter": config.adapter,
        "adapterOptions": config.adapter_options,
        "workspaceRoot": _relative(config.workspace_root, config.base_dir),
        "development": config.development,
        "listeners": list(config.listeners),
    }


def _relative(path: Path, base: Path) -> str:
    return Path(os.path.relpath(path.resolve(), base.resolve())).as_posix()
