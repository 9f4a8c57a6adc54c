"""SIGTERM as Ctrl-C: one process-wide policy for averos-ci's entry points (light: the
validate fast path imports it)."""

from __future__ import annotations

import signal
import threading


def sigterm_interrupts() -> None:
    """SIGTERM ends this process as Ctrl-C does (a KeyboardInterrupt, exit 130): its cleanups
    run — a template being built is removed, the commands it started are ended — where the
    default SIGTERM would skip them (and ``atexit``) and leave its children running in their
    own process groups. For a process entry point (the main thread); ``run`` and ``preview``
    install their own handling over it while they run."""

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    if (
        threading.current_thread() is threading.main_thread()
        and signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
    ):
        signal.signal(signal.SIGTERM, interrupt)
