"""The generated workspace as a set of changed files relative to the checked-out commit:
persisted on the state branch while an apply runs (so a later job can resume); kept
afterwards by :mod:`averos_ci.statebranch.keep`."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import git

from averos_ci._fs import atomic_write_text, contained

DELETED_FILE = "deleted.json"


def changed_files(repo: git.Repo, workspace_root: Path) -> dict[str, Path | None]:
    """Repository-relative paths under ``workspace_root`` that differ from HEAD (untracked and
    modified: the file; deleted: ``None``). Ignored files (node_modules, …) are left out."""
    root = Path(repo.working_tree_dir or ".").resolve()
    try:
        rel = workspace_root.resolve().relative_to(root)
    except ValueError:
        return {}
    out = str(
        repo.git.status(
            "--porcelain=v1",
            "-z",
            "--untracked-files=all",
            "--no-renames",
            "--",
            rel.as_posix() or ".",
        )
    )
    changes: dict[str, Path | None] = {}
    for entry in out.split("\0"):
        if len(entry) < 4:
            continue
        code, path = entry[:2], entry[3:]
        changes[path] = None if "D" in code else root / path
    return changes


def snapshot(changes: dict[str, Path | None], dest: Path) -> None:
    """Copy the changed files into ``dest/files/`` and list deletions in ``dest/deleted.json``."""
    if dest.exists():
        shutil.rmtree(dest)
    (dest / "files").mkdir(parents=True)
    deleted = sorted(p for p, f in changes.items() if f is None)
    for rel, file in changes.items():
        # a generated symlink is never followed: it could point at any file of the runner
        if file is not None and not file.is_symlink() and file.is_file():
            target = contained(dest / "files", rel)  # git's paths, checked all the same
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(file, target)
    atomic_write_text(dest / DELETED_FILE, json.dumps(deleted) + "\n")
