"""Helper processes (npm, node, ng) and how none outlives averos-ci.

Each child runs in its own process group (a terminal's Ctrl-C reaches averos-ci alone, which
decides what to stop). While it runs, its group is *live* here: an abort (the second signal),
the end of an interrupted run and the exit of averos-ci end every live group
(:func:`end_all`).

A SIGKILL of averos-ci ends nothing: the schematics driver (or an `ng generate`) may still be
writing when ``--resume`` starts. Such a child's group is also recorded in
``<workspace>/.averos-ci/child.json``; the next run ends that group (only if its leader is
still the process we started) before rolling back the journal.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import NoReturn

from averos_ci._fs import atomic_write_text

CHILD_FILE = Path(".averos-ci") / "child.json"
END_WAIT_S = 10.0  # a SIGKILLed group is gone in milliseconds; this bounds a stuck exit


@dataclass
class Group:
    """A live process group: its leader's pid and the command, as the console names it."""

    pgid: int
    command: str
    ended: bool = False  # by end_all: the run is being abandoned, not a failure of the command


# A re-entrant lock: a signal handler (end_all, running) may interrupt the main thread inside
# live() on the same thread.
_lock = threading.RLock()
_live: dict[int, Group] = {}


@contextlib.contextmanager
def live(pgid: int, command: str) -> Iterator[Group]:
    """The group ``pgid`` (its leader started with ``start_new_session``) is live in the block."""
    group = Group(pgid, command)
    with _lock:
        _live[pgid] = group
    try:
        yield group
    finally:
        with _lock:
            _live.pop(pgid, None)


def abandoned() -> NoReturn:
    """A command was ended because the run abandons its running nodes (a second signal, the
    end of an interrupted run, the exit). In the main thread that is an interrupt. A node's
    thread returns nothing: the run no longer waits for it, and a failure returned now would
    be recorded as the node's (FAILED) instead of leaving it interrupted (RUNNING: ``--resume``
    runs it again). It sleeps until averos-ci exits; what it was building is removed at exit
    (``template.staging``)."""
    if threading.current_thread() is threading.main_thread():
        raise KeyboardInterrupt
    while True:
        time.sleep(3600)


def running() -> list[str]:
    """The commands of the live groups, oldest first."""
    with _lock:
        return [g.command for g in _live.values()]


def end_all() -> list[str]:
    """SIGKILL every live group and wait until no process of theirs runs (so that their folders
    can be removed); their commands, oldest first."""
    with _lock:
        groups = list(_live.values())
        for group in groups:
            group.ended = True  # before the kill: its waiter must know why the command ended
    for group in groups:
        end_group(group.pgid)
    return [g.command for g in groups]


def end_group(pgid: int, *, timeout: float = END_WAIT_S) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)
    deadline = time.monotonic() + timeout
    while _group_runs(pgid) and time.monotonic() < deadline:
        time.sleep(0.01)


def _group_runs(pgid: int) -> bool:
    """Does a process of group ``pgid`` still run (a zombie runs nothing)?"""
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text(encoding="latin1").rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue  # gone meanwhile
        if int(fields[2]) == pgid and fields[0] not in {"Z", "X"}:
            return True
    return False


atexit.register(end_all)  # an abandoned node's command must not outlive averos-ci


class HeldSignals:
    """SIGINT and SIGTERM held back while a command starts, until whoever ends it knows its
    pid (:meth:`release` acts on one received meanwhile).

    Their KeyboardInterrupt could otherwise land as ``Popen`` returns (or inside it, once the
    child is forked): the child's pid would be lost with the ``Popen``, and the command — in a
    process group of its own, out of reach of a terminal's Ctrl-C — would outlive averos-ci.
    Only the main thread runs signal handlers; in another thread this holds nothing.
    """

    SIGNALS = (signal.SIGINT, signal.SIGTERM)

    def __init__(self) -> None:
        self._received: list[int] = []
        self._saved: dict[int, Callable[[int, FrameType | None], object] | int] = {}
        if threading.current_thread() is not threading.main_thread():
            return
        for signum in self.SIGNALS:
            handler = signal.getsignal(signum)
            if callable(handler) or handler == signal.SIG_DFL:  # not SIG_IGN, nor a C handler
                self._saved[signum] = handler
                signal.signal(signum, self._hold)

    def _hold(self, signum: int, frame: FrameType | None) -> None:
        self._received.append(signum)

    def release(self) -> None:
        """Put the handlers back and run them for the signals received meanwhile, in order
        (a run's handler counts them: the second one aborts)."""
        saved, self._saved = self._saved, {}
        for signum, handler in saved.items():
            signal.signal(signum, handler)
        received, self._received = self._received, []
        for signum in received:
            handler = saved[signum]
            if callable(handler):
                handler(signum, None)
            elif handler == signal.SIG_DFL:
                signal.raise_signal(signum)


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
