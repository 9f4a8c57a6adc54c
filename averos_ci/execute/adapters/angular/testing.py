"""Helpers for tests and benchmarks: a cached template workspace copied per test.

Not used by the adapter itself; kept in the package so that the test-suites and
``bench/angular_adapter.py`` share one definition of "a ready ToDo workspace".
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

from averos_ci.execute.contracts import CancelToken, ExecutionContext

from .options import AngularOptions, cache_root
from .scan import scan
from .template.bootstrap import BootstrapSpec
from .template.cache import ensure_template
from .template.workspace import copy_workspace


def node_missing_reason() -> str | None:
    missing = [tool for tool in ("node", "npm", "npx") if shutil.which(tool) is None]
    return f"{', '.join(missing)} not on PATH" if missing else None


def template_workspace(app_name: str = "ToDoApp", language: str = "en") -> Path:
    """The cached template (built on first use: minutes, needs the npm registry)."""
    options = AngularOptions()
    root = cache_root(options)
    spec = BootstrapSpec.from_options(options, app_name=app_name, language=language)
    return ensure_template(root, spec, log=root / "logs" / "warm.log")


def fresh_workspace(template: Path, dest: Path, *, shared_node_modules: bool = False) -> Path:
    """A copy of the template; ``shared_node_modules`` symlinks its node_modules (enough to
    run schematics, instant to create and delete; builds want the hard-linked copy)."""
    copy_workspace(template, dest, symlink_node_modules=shared_node_modules)
    return dest


def context(
    workspace: Path, node_id: str = "node", *, dry_run: bool = False, logs: Path | None = None
) -> ExecutionContext:
    logs_dir = logs or workspace.parent / f"{workspace.name}-logs"
    safe = node_id.replace(":", "_").replace("/", "_")
    return ExecutionContext(
        dry_run=dry_run,
        workspace_root=workspace,
        logs_dir=logs_dir,
        attempt=1,
        run_id="test",
        cancel=CancelToken(),
        log_file=logs_dir / "nodes" / f"{safe}.log",
    )


def tree_digest(workspace: Path) -> dict[str, str]:
    """Every file outside node_modules / build output, by content hash."""
    return scan(workspace)


def digest_of(files: dict[str, str]) -> str:
    return hashlib.sha256(repr(sorted(files.items())).encode()).hexdigest()
