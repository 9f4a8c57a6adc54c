"""The ``execution`` part (adapter, adapterOptions, workspaceRoot …) that the base branch's
config gives, so that the plan comment can show what a pull request changes in it: such a
change voids an approval, and the reviewer must see why. The files that execution loads
(``loadedFiles``) are read from the base commit."""

from __future__ import annotations

import posixpath
import tempfile
from pathlib import Path
from typing import Any

from averos_ci._actions import annotate
from averos_ci.config import CONFIG_FILE_NAME, default_config, load_config
from averos_ci.errors import AverosCIError
from averos_ci.execute.adapters.identity import execution_identity
from averos_ci.forge.context import FlowContext


def base_execution(ctx: FlowContext, base_sha: str | None) -> tuple[dict[str, Any] | None, str]:
    """``(execution part at base_sha, label)``; ``None`` when there is no base to compare
    with or its config cannot be read (a warning says so). A base without the config file
    gives the defaults' execution part."""
    label = f"base {base_sha[:12]}" if base_sha else "base"
    cfg = ctx.config.config_path
    if not base_sha or not base_sha.strip("0") or cfg is None:
        return None, label
    try:
        rel = cfg.resolve().relative_to(ctx.repo_root).as_posix()
        sb = ctx.state_branch()
        raw = sb.read_commit_file(base_sha, rel)
        folder = posixpath.dirname(rel)

        def read(path: str) -> bytes | None:  # the base commit's files, not the checkout's
            return sb.read_commit_file(base_sha, posixpath.join(folder, path))

        with tempfile.TemporaryDirectory(prefix="averos-ci-base-") as tmp:
            if raw is None:
                config = default_config(Path(tmp))
            else:
                path = Path(tmp) / (cfg.name or CONFIG_FILE_NAME)
                path.write_bytes(raw)
                config = load_config(path)
            # the code it loads, as the base commit has it (looked for in this checkout)
            return execution_identity(config, root=cfg.resolve().parent, read=read), label
    except (AverosCIError, ValueError) as exc:
        annotate("warning", f"cannot read the base branch's execution settings: {exc}")
        return None, label
