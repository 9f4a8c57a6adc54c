"""The process tree of a run, read from /proc (Linux), for tests that interrupt one."""

from __future__ import annotations

from pathlib import Path


def descendants(pid: int) -> set[int]:
    """The processes ``pid`` started, the processes they started, and so on — now."""
    parents: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            ppid = stat.read_text("latin1").rsplit(")", 1)[1].split()[1]
            parents[int(stat.parent.name)] = int(ppid)
        except (OSError, IndexError, ValueError):
            continue  # gone meanwhile
    found: set[int] = set()
    frontier = {pid}
    while frontier:
        frontier = {p for p, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode().strip()
    except OSError:
        return ""


def working_in(folder: Path) -> list[int]:
    """The processes whose current directory is ``folder`` or inside it."""
    found = []
    for cwd in Path("/proc").glob("[0-9]*/cwd"):
        try:
            target = cwd.readlink()
        except OSError:
            continue
        if target == folder or folder in target.parents:
            found.append(int(cwd.parent.name))
    return found
