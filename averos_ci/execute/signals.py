"""SIGINT/SIGTERM: the first stops scheduling (running nodes get a grace period), the second
abandons the running nodes at once. Either way progress is persisted and the exit code is 130."""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType

from averos_ci.execute.contracts import CancelToken


@contextmanager
def cancel_on_signals(cancel: CancelToken, *, abort: Callable[[], None]) -> Iterator[None]:
    if threading.current_thread() is not threading.main_thread():
        yield  # only the main thread may install handlers; the caller owns ``cancel``
        return
    received = 0

    def handler(signum: int, frame: FrameType | None) -> None:
        nonlocal received
        received += 1
        name = signal.Signals(signum).name
        if received == 1:
            cancel.cancel(f"interrupted by {name}")
            print(
                f"\n{name}: stopping; running nodes may finish (send again to abort them)",
                file=sys.stderr,
                flush=True,
            )
        else:
            abort()

    previous = {sig: signal.signal(sig, handler) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)
