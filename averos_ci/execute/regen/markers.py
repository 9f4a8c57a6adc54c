"""Unresolved conflict markers: git's ``<<<<<<<`` / ``=======`` / ``>>>>>>>`` lines left in a
file (after ``run --merge-conflicts=markers``, a ``git merge``, or a copy of a plan's hunk).

A file holding them does not compile, and a merge into it would nest markers in markers: every
command that plans, applies, reports drift or builds the app finds them first and names each
one ``file:line`` (``plan``, ``run``, ``drift``, ``preview``, the ``averos-conflict-markers``
pre-commit hook). A region counts only when complete (an opening line, a separator, then a
closing line, each a marker of exactly seven characters alone or followed by a space), so
a line of ``=`` in a comment or a ``<<<<<<<<`` banner is not one; the lines averos-ci's own
merge writes (``<<<<<<< yours (workspace)``, ``||||||| generated before``, ``>>>>>>> generated
now``) count even alone, as a half-resolved region leaves them.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from averos_ci._fs import contained
from averos_ci.errors import InputError, PlanConflicts
from averos_ci.execute.regen.tree import EXCLUDED

_OPEN = re.compile(rb"<{7}(?: .*)?")
_SEPARATOR = re.compile(rb"={7}")
_CLOSE = re.compile(rb">{7}(?: .*)?")

UNRESOLVED = "unresolved conflict markers"
RESOLVE_HINT = (
    "edit each region to what you want to keep (your side, the generator's, or both) and "
    "delete its <<<<<<< ||||||| ======= >>>>>>> lines, then run again: what you keep is your "
    "edit from then on"
)


@dataclass(frozen=True, order=True)
class MarkerFinding:
    path: str
    line: int  # 1-based: the region's ``<<<<<<<`` line

    def __str__(self) -> str:
        return f"{self.path}:{self.line}"


class UnresolvedMarkers(PlanConflicts):
    """Files still hold conflict markers: nothing is applied or built (exit 5)."""

    @classmethod
    def of(cls, found: Sequence[MarkerFinding], *, what: str) -> UnresolvedMarkers:
        return cls(
            f"{len(found)} unresolved conflict marker region(s); {what}:\n"
            + "\n".join(f"  {f}" for f in found),
            hint=RESOLVE_HINT,
        )


# The labels of the three sides in the markers averos-ci's merge writes (regen.merge).
LABELS = ("yours (workspace)", "generated before", "generated now")
# Those marker lines: no line of code is one, so each counts even alone — a region half
# resolved (its <<<<<<< and >>>>>>> deleted, its ||||||| base left behind) still does not
# compile and is still found.
LABELLED = frozenset(
    f"{mark * 7} {label}".encode() for mark, label in zip("<|>", LABELS, strict=True)
)


def marker_lines(data: bytes) -> tuple[int, ...]:
    """The 1-based lines where a complete unresolved conflict region opens, and those of
    averos-ci's own labelled marker lines left outside a complete region."""
    if b"<<<<<<<" not in data and b"|||||||" not in data and b">>>>>>>" not in data:
        return ()  # the common case, without splitting the file
    found: list[int] = []
    opened: int | None = None
    separated = False
    region: list[int] = []  # the labelled lines of the region being read
    lone: list[int] = []
    for number, raw in enumerate(data.splitlines(), start=1):
        line = raw.rstrip(b"\r")
        if _OPEN.fullmatch(line):
            lone += region  # an earlier opening never closed: its labelled lines stand alone
            opened, separated, region = number, False, []
        elif opened is not None and _SEPARATOR.fullmatch(line):
            separated = True
        elif opened is not None and separated and _CLOSE.fullmatch(line):
            found.append(opened)
            opened, separated, region = None, False, []
            continue
        if line in LABELLED:
            (region if opened is not None else lone).append(number)
    return tuple(sorted({*found, *lone, *region}))


def marker_regions(data: bytes, *, max_lines: int = 60) -> str:
    """The unresolved regions of ``data`` (markers included), for a finding's hunk."""
    lines = data.decode("utf-8", errors="replace").splitlines()
    starts = marker_lines(data)
    out: list[str] = []
    for start in starts:
        first = lines[start - 1].rstrip("\r")
        if not _OPEN.fullmatch(first.encode()):
            out.append(first)  # a labelled marker line left alone
            continue
        for line in lines[start - 1 :]:
            out.append(line.rstrip("\r"))
            if _CLOSE.fullmatch(line.rstrip("\r").encode()):
                break
    return "".join(f"{line}\n" for line in out[:max_lines])


def find_markers(root: Path, paths: Iterable[str]) -> tuple[MarkerFinding, ...]:
    """The findings in the files ``paths`` (relative to ``root``, kept inside it); a path that
    is not a readable regular file is skipped."""
    found: list[MarkerFinding] = []
    for path in paths:
        data = _regular_bytes(contained(root, path))
        if data is not None:
            found += [MarkerFinding(path, n) for n in marker_lines(data)]
    return tuple(sorted(found))


def workspace_files(root: Path) -> Iterator[str]:
    """Every regular file of the workspace outside dependencies and build output."""
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in EXCLUDED)
        for name in sorted(names):
            yield (Path(folder) / name).relative_to(root).as_posix()


def scan_files(paths: Iterable[Path]) -> tuple[MarkerFinding, ...]:
    """The findings in the files named (as given, relative to the current folder: a
    pre-commit hook's staged files); a folder is searched whole (outside dependencies and
    build output), a symbolic link or another non-regular file is skipped. A path that does
    not exist is an :class:`~averos_ci.errors.InputError` (exit 2): a check of a mistyped
    name must not pass."""
    found: list[MarkerFinding] = []
    for path in paths:
        if path.is_dir() and not path.is_symlink():
            found += [
                MarkerFinding((path / f.path).as_posix(), f.line)
                for f in find_markers(path, workspace_files(path))
            ]
            continue
        if not path.exists() and not path.is_symlink():
            raise InputError(
                f"{path}: no such file or folder",
                hint="name files relative to the current folder (e.g. "
                "<workspaceRoot>/src/app/...), or give none to check the config's workspace",
            )
        data = _regular_bytes(path)
        if data is not None:
            found += [MarkerFinding(path.as_posix(), n) for n in marker_lines(data)]
    return tuple(sorted(found))


def _regular_bytes(path: Path) -> bytes | None:
    """The content of ``path`` when it is a readable regular file (not a symbolic link)."""
    try:
        if path.is_symlink() or not path.is_file():
            return None
        return path.read_bytes()
    except OSError:
        return None


def check_markers(
    paths: Sequence[Path] = (), *, config: Path | None = None
) -> tuple[MarkerFinding, ...]:
    """``averos-ci conflict-markers``: the findings in ``paths``, or without any, in every
    file of the config's workspace (outside dependencies and build output)."""
    if paths:
        return scan_files(paths)
    from averos_ci.config import load_config

    root = load_config(config).workspace_root
    return find_markers(root, workspace_files(root)) if root.is_dir() else ()
