"""Helper processes that outlive a killed run.

A SIGKILL of averos-ci does not kill its children: the schematics driver (or an
`ng generate`) may still be writing when ``--resume`` starts. Each child runs in its own
process group, recorded in ``<workspace>/.averos-ci/child.json``; the next run ends that
group (only if its leader is still the process we started) before rolling back the journal.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import time
from pathlib import Path

from averos_ci._fs import atomic_write_text

CHILD_FILE = Path(".averos-ci") / "child.json"


def record(root: Path, pid: int, marker: str) -> None:
    atomic_write_text(root / CHILD_FILE, json.dumps({"pgid": pid, "marker": marker}))


def forget(root: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        (root / CHILD_FILE).unlink()
    with contextlib.suppress(OSError):  # only when empty
        (root / CHILD_FILE).parent.rmdir()


def _cmdline(pid: int) -> str:
    try:
        return (Path("/proc") / str(pid) / "cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def reap(root: Path, *, timeout: float = 10.0) -> bool:
    """End the recorded child group of an interrupted run; True if one was still running."""
    path = root / CHILD_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        pgid, marker = int(data["pgid"]), str(data["marker"])
    except (OSError, ValueError, KeyError, TypeError):
        forget(root)
        return False
    alive = bool(marker) and marker in _cmdline(pgid)
    if alive:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pgid, signal.SIGKILL)
        deadline = time.monotonic() + timeout
        while marker in _cmdline(pgid) and time.monotonic() < deadline:
            time.sleep(0.02)
    forget(root)
    return alive
