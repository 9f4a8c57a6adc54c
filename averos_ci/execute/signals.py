"""SIGINT/SIGTERM: the first stops scheduling (running nodes get a grace period, and a line
every few seconds says what is still running), the second abandons the running nodes at once
and ends the commands they started. Either way progress is persisted, no command the run
started outlives it, and the exit code is 130."""

from __future__ import annotations

import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType

from averos_ci.execute.adapters import _children as children
from averos_ci.execute.contracts import CancelToken

NOTICE_EVERY_S = 3.0

# What a second signal aborts besides the caller's ``abort``: each Runner while it schedules
# (a run may hold several, e.g. a clean generation's runner inside an apply).
_aborts: list[Callable[[], None]] = []


@contextmanager
def abortable(abort: Callable[[], None]) -> Iterator[None]:
    """A second signal calls ``abort`` while the block runs."""
    _aborts.append(abort)
    try:
        yield
    finally:
        _aborts.remove(abort)


@contextmanager
def cancel_on_signals(cancel: CancelToken, *, abort: Callable[[], None]) -> Iterator[None]:
    if threading.current_thread() is not threading.main_thread():
        yield  # only the main thread may install handlers; the caller owns ``cancel``
        return
    received = 0
    notice = _Notice()

    def handler(signum: int, frame: FrameType | None) -> None:
        nonlocal received
        received += 1
        name = signal.Signals(signum).name
        if received == 1:
            cancel.cancel(f"interrupted by {name}")
            _say(f"\n{name}: stopping; running nodes may finish (send again to abort them)")
            notice.start(name)
            return
        notice.stop()
        commands = children.running()
        ending = f": ending {', '.join(commands)}" if commands else ""
        _say(f"{name} again: aborting now, abandoning the running nodes{ending}")
        children.end_all()
        for hook in [abort, *_aborts]:
            hook()

    previous = {sig: signal.signal(sig, handler) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)
        notice.stop()
        if received:  # the commands of nodes abandoned at the end of the grace period
            children.end_all()


class _Notice:
    """After the first signal, a line every :data:`NOTICE_EVERY_S` while the run winds down."""

    def __init__(self) -> None:
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self, name: str) -> None:
        self._thread = threading.Thread(target=self._run, args=(name,), daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()

    def _run(self, name: str) -> None:
        started = time.monotonic()
        while not self._stop.wait(NOTICE_EVERY_S):
            commands = children.running()
            waiting = ", ".join(commands) if commands else "the running nodes"
            elapsed = int(time.monotonic() - started)
            _say(
                f"{name}: still stopping ({elapsed} s): waiting for {waiting} "
                f"(send {name} again to abort)"
            )


def _say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)
