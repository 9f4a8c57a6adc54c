"""What a plan's identity covers besides the manifest and the base state: the execution
settings that change *what runs* (the adapter, its options, where it writes, the listeners it
loads, development mode). They are a small ``execution`` part of the plan JSON and so part of
the planHash: an approval of a plan never carries over to another adapter, registry,
collection or workspace.

The adapter's part is the adapter's to say (its hooks,
:class:`~averos_ci.execute.adapters.contract.AdapterBase`): its options completed from the
config (``config_options``), which of them count (``identity_options``: the mock's latency
and simulated failures do not) and the repository code it loads, by content
(``loaded_files``). Listener modules in the repository count by content too
(:mod:`averos_ci.plan.loaded_files`). How the run is paced (``mode``, ``maxAttempts``,
``timeoutMs``, ``concurrency``) and where files are kept are left out: they change no result.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from averos_ci.execute.adapters import (
    adapter_name,
    adapter_options,
    identity_options,
    loaded_files,
)
from averos_ci.execute.adapters.contract import Reader
from averos_ci.plan.loaded_files import disk_reader, listener_files

if TYPE_CHECKING:
    from averos_ci.config import RunConfig

__all__ = ["execution_identity", "portable"]


def execution_identity(
    config: RunConfig, *, root: Path | None = None, read: Reader | None = None
) -> dict[str, Any]:
    """The ``execution`` part of the plan for ``config`` (paths relative to the config's
    folder, so the same repository plans to the same hash in every checkout).

    ``root`` (default: the config's folder) and ``read`` (default: its files on disk): where
    the loaded files are looked for and read — another commit's files for the base branch."""
    # the effective options (averosVersion, localTgz … completed from the config)
    name = adapter_name(config.adapter)
    options = identity_options(name, adapter_options(config))
    identity: dict[str, Any] = {
        "adapter": name,
        "adapterOptions": {k: portable(v, config.base_dir) for k, v in options.items()},
        "workspaceRoot": _relative(config.workspace_root, config.base_dir),
        "development": config.development,
        "listeners": list(config.listeners),
    }
    root = root or config.base_dir
    read = read or disk_reader(root)
    loaded = listener_files(config.listeners, root=root, read=read)
    loaded |= loaded_files(name, options, base_dir=config.base_dir, read=read)
    if loaded:  # only then: plans that load no such file keep their hashes
        identity["loadedFiles"] = dict(sorted(loaded.items()))
    if config.sensitive:  # only then: plans without added rules keep their hashes
        # what the plan masks is what reviewers see: part of what they approve
        identity["sensitive"] = list(config.sensitive)
    return identity


def portable(value: Any, base: Path) -> Any:
    """An absolute path inside the config's folder (``configDir``, a resolved ``localTgz``)
    as a relative one: checkouts live at different places."""
    if isinstance(value, str) and os.path.isabs(value):
        path = Path(value)
        if path.resolve().is_relative_to(base.resolve()):
            return _relative(path, base)
    return value


def _relative(path: Path, base: Path) -> str:
    return Path(os.path.relpath(path.resolve(), base.resolve())).as_posix()
