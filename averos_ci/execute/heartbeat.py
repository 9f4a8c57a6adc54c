"""Signs of life during a long node: how long it has run and the last line of its log (where
the adapter streams ``ng new`` / ``npm install`` output). Plain output gets a line every
``AVEROS_CI_HEARTBEAT_S`` seconds (default 10) per node running longer than that; the rich
display shows the same text beside its spinner."""

from __future__ import annotations

import os
import re
import threading
import time
from collections.abc import Callable
from pathlib import Path

from averos_ci import _secrets
from averos_ci.execute.logs import node_log_path, tail

DEFAULT_INTERVAL_S = 10.0
ENV_INTERVAL = "AVEROS_CI_HEARTBEAT_S"
_WIDTH = 100
_CONTROL = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|[\x00-\x1f\x7f]")


def interval_s(value: float | None = None) -> float:
    """``value``, else ``AVEROS_CI_HEARTBEAT_S``, else 10 s (a bad value is the default)."""
    if value is not None:
        return value
    try:
        return max(0.01, float(os.environ.get(ENV_INTERVAL, DEFAULT_INTERVAL_S)))
    except ValueError:
        return DEFAULT_INTERVAL_S


def last_line(log: Path) -> str:
    """What ``log`` says last: its last non-empty line, after the command it comes from when
    that is not the line itself (``npx @angular/cli@14.2.13 new: CREATE src/app/…``);
    control characters and every secret the process knows (the plan's, the token) removed
    (the log itself is scrubbed only when the node ends), shortened."""
    lines = [_clean(ln) for ln in tail(log, max_lines=400, max_bytes=65536).splitlines()]
    lines = [ln for ln in lines if ln]
    if not lines:
        return ""
    last = lines[-1]
    command = next((ln for ln in reversed(lines) if ln.startswith("$ ")), None)
    if command is not None and command is not last and not last.startswith("---"):
        last = f"{_short_command(command)}: {last}"
    last = _secrets.scrub(last)
    return last if len(last) <= _WIDTH else last[: _WIDTH - 1] + "…"


def _clean(line: str) -> str:
    return _CONTROL.sub("", line.split("\r")[-1]).strip()


def _short_command(line: str) -> str:
    """``$ /usr/bin/npx -y @angular/cli@14 new App --x`` -> ``npx @angular/cli@14 new``."""
    words = line[2:].split()
    if not words:
        return ""
    kept = [Path(words[0]).name, *(w for w in words[1:] if not w.startswith("-"))]
    return " ".join(kept[:3])


class Running:
    """The nodes running now, with their start times (thread-safe)."""

    def __init__(self, logs_dir: Path) -> None:
        self.logs_dir = logs_dir
        self._started: dict[str, float] = {}
        self._lock = threading.Lock()

    def start(self, node_id: str) -> None:
        with self._lock:
            self._started.setdefault(node_id, time.monotonic())

    def stop(self, node_id: str | None = None) -> None:
        with self._lock:
            if node_id is None:
                self._started.clear()
            else:
                self._started.pop(node_id, None)

    def longer_than(self, seconds: float) -> list[tuple[str, float]]:
        now = time.monotonic()
        with self._lock:
            items = list(self._started.items())
        return [(n, now - t) for n, t in items if now - t >= seconds]

    def __bool__(self) -> bool:
        with self._lock:
            return bool(self._started)

    def describe(self, node_id: str, elapsed: float) -> str:
        """``application:ToDoApp 40 s: added 1012 packages``."""
        return f"{node_id} {self.activity(node_id, elapsed)}"

    def activity(self, node_id: str, elapsed: float) -> str:
        """``40 s: added 1012 packages``: the elapsed time and the node log's last line."""
        line = last_line(node_log_path(self.logs_dir, node_id))
        return f"{elapsed:.0f} s" + (f": {line}" if line else "")


class Heartbeat:
    """A daemon thread that, while nodes run, calls ``say`` with a line every ``every``
    seconds for each node running at least that long; it ends when no node runs."""

    def __init__(self, running: Running, *, every: float, say: Callable[[str], None]) -> None:
        self.running = running
        self.every = every
        self.say = say
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._lock = threading.Lock()

    def ensure(self) -> None:
        """Beat (call after the node is recorded as running)."""
        with self._lock:
            if self._thread is None:
                self._stop = threading.Event()
                self._thread = threading.Thread(
                    target=self._beat, args=(self._stop,), name="averos-ci-heartbeat", daemon=True
                )
                self._thread.start()

    def close(self) -> None:
        with self._lock:
            thread, self._thread = self._thread, None
            self._stop.set()
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=5)

    def _beat(self, stop: threading.Event) -> None:
        while not stop.wait(self.every):
            with self._lock:  # ending and ensure() are exclusive: no node goes unwatched
                if stop.is_set():
                    return
                if not self.running:
                    self._thread = None
                    return
            for node_id, elapsed in self.running.longer_than(self.every):
                self.say(f"running {self.running.describe(node_id, elapsed)}")
