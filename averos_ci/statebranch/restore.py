"""Putting a partly generated workspace from the state branch back into the checkout, when a
job resumes an interrupted apply.

The state branch is untrusted input: anyone who can push to it controls these files. So only
*generated* files are restored — regular files under ``workspaceRoot`` — and never the
manifest, the config, the state or checkpoint files, anything under ``.git`` or ``.github``,
a path that escapes, or a path through a symlink. Whatever is refused is named in a warning.
What is restored cannot change what runs: the engine executes only the approved planHash,
computed before the restore and re-checked after it.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterable
from pathlib import Path, PurePosixPath

from averos_ci._actions import annotate
from averos_ci._fs import UnsafePath, contained, is_safe_relpath
from averos_ci.config import RunConfig
from averos_ci.statebranch.workspace import DELETED_FILE

FORBIDDEN_PARTS = frozenset({".git", ".github"})


class _Guard:
    def __init__(self, repo_root: Path, workspace_root: Path, protected: Iterable[Path]) -> None:
        self.root = repo_root.resolve()
        self.workspace = workspace_root.resolve()
        self.protected = {p.resolve() for p in protected}
        self.refused: list[str] = []

    def target(self, rel: str) -> Path | None:
        """The checkout path for repository-relative ``rel``, or ``None`` (refused)."""
        pure = PurePosixPath(rel)
        # the one path check (averos_ci._fs), and no .github: never a workflow from the branch
        ok = is_safe_relpath(rel) and not FORBIDDEN_PARTS.intersection(pure.parts)
        target = _contained(self.root, rel) if ok else None
        if target is not None:
            # no symlink anywhere on the way: the path must stay where it says it is
            walk = self.root
            for part in pure.parts:
                walk = walk / part
                if walk.is_symlink():
                    target = None
                    break
        if target is not None and (
            not target.is_relative_to(self.workspace)
            or target == self.workspace
            or target in self.protected
            or target.is_dir()
        ):
            target = None
        if target is None:
            self.refused.append(rel)
        return target


def _contained(root: Path, rel: str) -> Path | None:
    try:
        return contained(root, rel)
    except UnsafePath:
        return None


def restore_generated(src: Path, *, repo_root: Path, config: RunConfig) -> int:
    """Restore the snapshot in ``src`` (``files/`` and ``deleted.json``) into the checkout at
    ``repo_root``; returns the number of files written or deleted."""
    paths = (config.config_path, config.manifest_path, config.state_path, config.checkpoint_path)
    protected = [p for p in paths if p is not None]
    guard = _Guard(repo_root, config.workspace_root, protected)
    count = 0
    files = src / "files"
    for dirpath, dirnames, filenames in os.walk(files):  # never follows symlinks
        base = Path(dirpath)
        dirnames[:] = sorted(d for d in dirnames if not (base / d).is_symlink())
        for name in sorted(filenames):
            source = base / name
            rel = source.relative_to(files).as_posix()
            if source.is_symlink() or not source.is_file():
                guard.refused.append(rel)
                continue
            target = guard.target(rel)
            if target is None:
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            if target.is_symlink():  # appeared in between: never write through it
                guard.refused.append(rel)
                continue
            shutil.copyfile(source, target, follow_symlinks=False)
            count += 1
    for rel in _deleted(src / DELETED_FILE):
        target = guard.target(rel)
        if target is not None and target.is_file() and not target.is_symlink():
            target.unlink()
            count += 1
    if guard.refused:
        shown = ", ".join(repr(r) for r in guard.refused[:10])
        more = f" and {len(guard.refused) - 10} more" if len(guard.refused) > 10 else ""
        annotate(
            "warning",
            f"the state branch's partial workspace names {len(guard.refused)} path(s) that are "
            f"not generated files under workspaceRoot; not restored: {shown}{more}",
        )
    return count


def _deleted(listing: Path) -> list[str]:
    if listing.is_symlink() or not listing.is_file():
        return []
    try:
        data = json.loads(listing.read_text(encoding="utf-8"))
    except (ValueError, OSError):
        annotate("warning", f"{listing.name} on the state branch is not a JSON list: ignored")
        return []
    if not isinstance(data, list):
        return []
    return [str(x) for x in data]
