"""Whether a process still runs, for tests that kill process trees.

A SIGKILL is delivered asynchronously: ``kill`` returns before the target has died, and a
grandchild of a killed group may still be running for a moment under load. An orphan's
zombie counts as gone (it runs nothing, and a container's PID 1 may never reap it).
"""

from __future__ import annotations

import time
from pathlib import Path


def running(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="latin1")
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] not in {"Z", "X"}


def gone_within(pid: int, seconds: float) -> bool:
    """True once ``pid`` no longer runs; False if it still runs after ``seconds``."""
    deadline = time.monotonic() + seconds
    while running(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True
