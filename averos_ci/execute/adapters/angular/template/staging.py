"""Staging folders: where a template is built before it is renamed into the cache.

A staging folder holds a lock (``flock`` on :data:`LOCK_FILE`) for as long as its builder runs
— and as long as any command the builder started runs: they inherit the locked descriptor, so
an `npm ci` that outlives a SIGKILLed averos-ci still holds it. The folder is removed when the
build ends, and at exit if averos-ci ends while building (an abandoned node's thread never
reaches its ``finally``), after the commands writing into it are ended. A folder left by a
builder that was killed is swept the next time the template cache is used (a build, or a
ready template copied), once nobody holds its lock.
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import os
import shutil
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

from averos_ci.execute.adapters import _children as children

from .. import _proc

LOCK_FILE = ".building.lock"
# A folder without a lock is one being created or published this very moment (microseconds),
# or one an earlier averos-ci left (they had no lock): the latter goes once it is this old.
UNLOCKED_STALE_S = 3600.0
# A folder being removed is first renamed to this prefix: a removal cut short (Ctrl-C, a kill)
# leaves a folder any sweep removes at once, never one that looks freshly made and unlocked
# (rmtree may unlink the lock file first).
TRASH_PREFIX = ".del-"
_unfinished: set[Path] = set()


@contextlib.contextmanager
def staging_folder(parent: Path, *, prefix: str) -> Iterator[Path]:
    """A new locked folder in ``parent`` (stale ones swept first), removed when the block ends
    unless :func:`publish` moved it into place. The commands started in the block inherit the
    lock."""
    sweep(parent)
    # A folder no other builder can have: a process id is not enough when the cache folder is
    # shared with containers (each has its own process ids: two builders can both be pid 7).
    path = Path(tempfile.mkdtemp(prefix=prefix, dir=parent))
    fd = _lock_new(path)
    _unfinished.add(path)
    try:
        with _proc.holding(fd):
            yield path
    finally:
        _remove(path)
        _unfinished.discard(path)
        os.close(fd)


def publish(staged: Path, target: Path) -> None:
    """Rename the finished ``staged`` folder to ``target``, without its lock file (it is no
    part of the template)."""
    (staged / LOCK_FILE).unlink()
    os.replace(staged, target)


def sweep(parent: Path) -> list[Path]:
    """Remove the staging folders in ``parent`` that nobody builds in any more; those removed."""
    removed = []
    for path in sorted(parent.glob(f"{TRASH_PREFIX}*")):  # removals cut short
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
    for path in sorted(parent.glob(".*.tmp-*")):
        if path.is_dir() and not path.is_symlink() and _remove_if_stale(path):
            removed.append(path)
    return removed


def _lock_new(path: Path) -> int:
    """Lock ``path``'s lock file, made under another name and renamed once locked: a sweeper
    never finds it unlocked while its builder lives."""
    fd, temporary = tempfile.mkstemp(prefix=".lock-", dir=path)
    fcntl.flock(fd, fcntl.LOCK_EX)
    os.replace(temporary, path / LOCK_FILE)
    return fd


def _remove_if_stale(path: Path) -> bool:
    try:
        fd = os.open(path / LOCK_FILE, os.O_RDWR)
    except FileNotFoundError:
        with contextlib.suppress(OSError):
            if time.time() - path.stat().st_mtime > UNLOCKED_STALE_S:
                _remove(path)
                return True
        return False
    except OSError:  # not ours to judge (permissions)
        return False
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False  # a builder, or a command it started, still runs
        _remove(path)  # under the lock: another sweeper waits
        return True
    finally:
        os.close(fd)


@atexit.register
def _remove_unfinished() -> None:
    """A build abandoned by an interrupted run: end its commands, then remove its folder
    (seconds for a full ``node_modules``; a Ctrl-C meanwhile leaves it to the next sweep)."""
    if not _unfinished:
        return
    children.end_all()
    for path in list(_unfinished):
        _say(
            f"removing the unfinished template workspace {path} "
            "(Ctrl-C leaves it for the next build to remove)"
        )
        try:
            for _ in range(3):  # its builder's thread may be removing it too: go again
                _remove(path)
                if not path.exists():
                    break
        except KeyboardInterrupt:
            _say(f"left {path}: the next build removes it")
            return


def _remove(path: Path) -> None:
    """Remove the folder ``path``, renamed to a :data:`TRASH_PREFIX` name first (one rename)."""
    trash = path.parent / f"{TRASH_PREFIX}{uuid.uuid4().hex}"
    try:
        os.rename(path, trash)
    except OSError:  # gone already (published, removed), or not renamable: remove in place
        trash = path
    shutil.rmtree(trash, ignore_errors=True)


def _say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)
