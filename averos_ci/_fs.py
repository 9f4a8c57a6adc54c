"""Atomic, durable file writes (temp file + fsync + ``os.replace`` + directory fsync), and the
one containment check of a path that comes from data (:func:`contained`)."""

from __future__ import annotations

import contextlib
import os
import re
import tempfile
from collections.abc import Iterable
from pathlib import Path

from averos_ci.errors import InputError


def fsync_dir(directory: Path) -> None:
    with contextlib.suppress(OSError):  # not every file system lets a directory be opened
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _mode_for(path: Path) -> int:
    try:
        return os.stat(path).st_mode & 0o7777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data``: a crash leaves the old or the new file, never a torn one."""
    atomic_write_chunks(path, (data,))


def atomic_write_chunks(path: Path, chunks: Iterable[bytes]) -> None:
    """:func:`atomic_write_bytes` for content made piece by piece (never held whole)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        # mkstemp creates 0600: keep the replaced file's mode, else what open() would give.
        os.fchmod(fd, _mode_for(path))
        with os.fdopen(fd, "wb") as f:
            for chunk in chunks:
                f.write(chunk)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    fsync_dir(path.parent)


def atomic_write_text(path: Path, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


# -- paths from data (a tree index, a state file, a merge, a patch) -------------------------
# Such a path names a file under a root (the workspace, a state folder); whoever wrote the
# data (a state-branch writer, a pull request's generator) may have written "../x", "/etc/x"
# or ".git/hooks/x" instead. One check for all of them, before every read and write.

_DRIVE = re.compile(r"^[A-Za-z]:")


class UnsafePath(InputError):
    """A path from data that would leave its root (exit 2; nothing read or written)."""


def safe_relpath(rel: str) -> str:
    """``rel`` when it is a normalized relative posix path below its root: no absolute or
    drive path, no backslash, no NUL, no empty, ``.`` or ``..`` part, no ``.git`` part."""
    why = _unsafe(rel)
    if why is not None:
        raise UnsafePath(f"refused the path {rel!r}: {why}")
    return rel


def _unsafe(rel: object) -> str | None:
    if not isinstance(rel, str) or not rel:
        return "not a non-empty string"
    if "\0" in rel:
        return "it holds a NUL byte"
    if "\\" in rel:
        return "it holds a backslash"
    if rel.startswith("/") or _DRIVE.match(rel):
        return "it is absolute"
    parts = rel.split("/")
    if any(p in ("", ".", "..") for p in parts):
        return "it is not a normalized relative path (empty, '.' or '..' part)"
    if any(p.lower() == ".git" for p in parts):
        return "it names a .git folder"
    return None


def is_safe_relpath(rel: object) -> bool:
    return _unsafe(rel) is None


def contained(root: Path, rel: str) -> Path:
    """``root / rel`` after :func:`safe_relpath`, refused when it resolves outside ``root``
    (a symlinked file or parent folder pointing out of it included). The path returned is
    the unresolved one (a write replaces a symlinked file, never its target)."""
    path = Path(root) / safe_relpath(rel)
    real_root = Path(os.path.realpath(root))
    # the parent resolved (symlinked folders followed); the file itself when it is a link
    real = Path(os.path.realpath(path))
    real_parent = Path(os.path.realpath(path.parent))
    for candidate in (real_parent, real):
        if candidate != real_root and not candidate.is_relative_to(real_root):
            raise UnsafePath(f"refused the path {rel!r}: it resolves outside {root} ({candidate})")
    return path
