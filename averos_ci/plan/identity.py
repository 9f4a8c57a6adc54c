"""What a plan's identity covers besides the manifest and the base state: the execution
settings that change *what runs* (the adapter, its options, where it writes, the listeners it
loads, development mode). They are a small ``execution`` part of the plan JSON and so part of
the planHash: an approval of a plan never carries over to another adapter, registry,
collection or workspace. An adapter may narrow which of its options count (the mock's
latency and simulated failures do not). The code the execution loads counts by content
(``loadedFiles``: the node-module adapter's module and its local imports, listener modules
in the repository; :mod:`averos_ci.plan.loaded_files`), not only by name. How the run is
paced (``mode``, ``maxAttempts``, ``timeoutMs``, ``concurrency``) and where files are kept
are left out: they change no result.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from averos_ci.config import RunConfig
from averos_ci.plan.loaded_files import Reader, disk_reader, listener_files, node_module_files


def execution_identity(
    config: RunConfig, *, root: Path | None = None, read: Reader | None = None
) -> dict[str, Any]:
    """The ``execution`` part of the plan for ``config`` (paths relative to the config's
    folder, so the same repository plans to the same hash in every checkout).

    ``root`` (default: the config's folder) and ``read`` (default: its files on disk): where
    the loaded files are looked for and read — another commit's files for the base branch."""
    # execute imports the planner: imported here
    from averos_ci.execute.adapters import adapter_options, identity_options

    # the effective options (averosVersion, localTgz … completed from the config)
    options = identity_options(config.adapter, adapter_options(config))
    identity: dict[str, Any] = {
        "adapter": config.adapter,
        "adapterOptions": {k: _portable(v, config.base_dir) for k, v in options.items()},
        "workspaceRoot": _relative(config.workspace_root, config.base_dir),
        "development": config.development,
        "listeners": list(config.listeners),
    }
    root = root or config.base_dir
    loaded = _loaded_files(config, options, root=root, read=read or disk_reader(root))
    if loaded:  # only then: plans that load no such file keep their hashes
        identity["loadedFiles"] = loaded
    if config.sensitive:  # only then: plans without added rules keep their hashes
        # what the plan masks is what reviewers see: part of what they approve
        identity["sensitive"] = list(config.sensitive)
    return identity


def _loaded_files(
    config: RunConfig, options: dict[str, Any], *, root: Path, read: Reader
) -> dict[str, str]:
    files = listener_files(config.listeners, root=root, read=read)
    module = options.get("module")
    if config.adapter == "node-module" and isinstance(module, str) and module:
        if os.path.isabs(module):
            module = _portable(module, config.base_dir)
        if not os.path.isabs(module):
            files |= node_module_files(module, read)
    return dict(sorted(files.items()))


def _portable(value: Any, base: Path) -> Any:
    """An absolute path inside the config's folder (``configDir``, a resolved ``localTgz``)
    as a relative one: checkouts live at different places."""
    if isinstance(value, str) and os.path.isabs(value):
        path = Path(value)
        if path.resolve().is_relative_to(base.resolve()):
            return _relative(path, base)
    return value


def _relative(path: Path, base: Path) -> str:
    return Path(os.path.relpath(path.resolve(), base.resolve())).as_posix()
