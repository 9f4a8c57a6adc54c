"""Per-node undo journal: a node's writes become all-or-nothing across a SIGKILL.

Before a file is first changed by a node, its original bytes (or its absence) are saved
under ``<workspace>/.averos-ci/journal``. The journal is removed when the node ends; one
found at start-up belongs to a node that was interrupted mid-write, whose checkpoint is
therefore not SUCCESS: rolling it back lets ``--resume`` re-run that node on the exact
workspace an uninterrupted run would have seen. The Node driver writes entries in the same
format (``d<seq>.json`` + ``d<seq>.bak``); this module's are ``p<seq>``.

Protection is against process death, not power loss (no fsync on the hot path).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from averos_ci._fs import atomic_write_text

JOURNAL_DIR = Path(".averos-ci") / "journal"
SNAPSHOT = "snapshot.list"
FINISHED = "journal.done-"


def journal_dir(root: Path) -> Path:
    return root / JOURNAL_DIR


class Journal:
    """Undo log of one node; ``prefix`` tells its writers apart."""

    def __init__(self, root: Path, prefix: str = "p") -> None:
        self.root = root
        self.dir = journal_dir(root)
        self.prefix = prefix
        self._seen: set[str] = set()
        self._seq = 0

    def save(self, relative: str) -> None:
        if relative in self._seen:
            return
        self._seen.add(relative)
        self.dir.mkdir(parents=True, exist_ok=True)
        target = self.root / relative
        existed = target.is_file()
        name = f"{self.prefix}{self._seq:06d}"
        self._seq += 1
        if existed:
            shutil.copy2(target, self.dir / f"{name}.bak")
        (self.dir / f"{name}.json").write_text(
            json.dumps({"path": relative, "existed": existed}), encoding="utf-8"
        )

    def snapshot(self, files: dict[str, str]) -> None:
        """Journal every file (the writer is opaque): rollback also deletes files it adds."""
        self.dir.mkdir(parents=True, exist_ok=True)
        atomic_write_text(self.dir / SNAPSHOT, json.dumps(sorted(files)))
        for relative in sorted(files):
            self.save(relative)


def rollback(root: Path) -> list[str]:
    """Undo an interrupted node; returns the restored paths (empty if nothing to do).

    Safe to interrupt and repeat: the journal is only dropped once everything is restored.
    """
    _drop_finished(root)
    directory = journal_dir(root)
    if not directory.is_dir():
        return []
    entries = sorted(directory.glob("*.json"))
    # Later writers first (p after d), newest entry first within a writer.
    entries.sort(key=lambda p: (p.name[0] == "p", p.name), reverse=True)
    restored: list[str] = []
    for entry in entries:
        try:
            record = json.loads(entry.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue  # torn entry: written last, so its file was not touched yet
        relative = str(record["path"])
        if ".." in Path(relative).parts or Path(relative).is_absolute():
            continue
        target = root / relative
        backup = entry.with_suffix(".bak")
        if record["existed"] and backup.is_file():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(backup, target)
        elif not record["existed"] and target.is_file():
            target.unlink()
        for stray in target.parent.glob(f".{target.name}.*.tmp"):  # atomic_write leftovers
            stray.unlink()
        if target.parent.is_dir():
            _prune_empty_dirs(target.parent, root)
        restored.append(relative)
    listing = directory / SNAPSHOT
    if listing.is_file():
        from ..scan import scan  # local: scan imports workspace, which is heavier

        keep = set(json.loads(listing.read_text(encoding="utf-8")))
        for relative in sorted(set(scan(root)) - keep):
            (root / relative).unlink()
            _prune_empty_dirs((root / relative).parent, root)
            restored.append(relative)
    clear(root)
    return sorted(set(restored))


def clear(root: Path) -> None:
    """Drop the journal of a finished node: one rename, so a kill never leaves half of it."""
    directory = journal_dir(root)
    if directory.is_dir():
        directory.rename(directory.with_name(f"{FINISHED}{os.getpid()}"))
    _drop_finished(root)


def _drop_finished(root: Path) -> None:
    parent = journal_dir(root).parent
    if not parent.is_dir():
        return
    for finished in parent.glob(f"{FINISHED}*"):
        shutil.rmtree(finished, ignore_errors=True)
    _prune_empty_dirs(parent, root)


def _prune_empty_dirs(directory: Path, root: Path) -> None:
    while directory != root and directory.is_dir() and not any(directory.iterdir()):
        directory.rmdir()
        directory = directory.parent
