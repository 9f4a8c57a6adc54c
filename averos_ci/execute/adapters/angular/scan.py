"""Before/after hash scan of a workspace (node_modules and build output excluded)."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from averos_ci.execute.contracts import RuntimeMutation

from .template.workspace import IGNORED_DIRS


def scan(root: Path) -> dict[str, str]:
    hashes: dict[str, str] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in IGNORED_DIRS)
        for name in filenames:
            path = Path(dirpath) / name
            if path.is_symlink() or not path.is_file():
                continue
            hashes[path.relative_to(root).as_posix()] = hashlib.sha256(
                path.read_bytes()
            ).hexdigest()
    return hashes


def diff(before: dict[str, str], after: dict[str, str]) -> RuntimeMutation:
    return RuntimeMutation(
        created=tuple(sorted(after.keys() - before.keys())),
        updated=tuple(sorted(k for k in after.keys() & before.keys() if after[k] != before[k])),
        deleted=tuple(sorted(before.keys() - after.keys())),
    )
