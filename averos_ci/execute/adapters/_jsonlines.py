"""One long-lived helper process spoken to in JSON lines over stdio.

Shared by the Angular schematics driver and the Node-module adapter's host: requests go
to stdin one JSON object a line, replies come back on stdout the same way (any other line
on stdout is ignored), stderr goes to a log file. The process runs in its own process
group; with ``track_root`` it is recorded there (see ``_children``) so that a run
resumed after a SIGKILL can end an orphan before touching the workspace.
"""

from __future__ import annotations

import json
import queue
import subprocess
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import IO, Any

from averos_ci.execute.adapters import _children as children


class JsonLinesError(Exception):
    """The process could not start, died, or did not answer in time."""


class RequestCancelled(Exception):
    """The caller's cancel check turned true while waiting; the process was killed."""


_CANCEL_POLL_S = 0.05


class JsonLinesProcess:
    def __init__(
        self,
        argv: Sequence[str],
        *,
        cwd: Path,
        env: Mapping[str, str],
        stderr_log: Path | None,
        label: str,
        track_root: Path | None = None,
        marker: str = "",
        error: type[JsonLinesError] = JsonLinesError,
    ) -> None:
        self.label = label  # "the schematics driver": used in error messages
        self._error = error
        self._track_root = track_root
        self._stderr: IO[bytes] | int = subprocess.DEVNULL
        if stderr_log is not None:
            stderr_log.parent.mkdir(parents=True, exist_ok=True)
            self._stderr = stderr_log.open("ab")
        try:
            self._proc = subprocess.Popen(
                list(argv),
                cwd=cwd,
                env=dict(env),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self._stderr,
                text=True,
                encoding="utf-8",
                bufsize=1,
                start_new_session=True,
            )
        except OSError as exc:
            self._close_stderr()
            raise error(f"{label} could not be started: {exc}") from None
        if track_root is not None:
            children.record(track_root, self._proc.pid, marker)
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self._next_id = 0

    @property
    def pid(self) -> int:
        return self._proc.pid

    def _read(self) -> None:
        assert self._proc.stdout is not None
        for line in self._proc.stdout:
            self._lines.put(line)
        self._lines.put(None)

    def receive(
        self, timeout: float, *, cancelled: Callable[[], bool] | None = None
    ) -> dict[str, Any]:
        """The next protocol message; kills the process if none comes within ``timeout``
        (or as soon as ``cancelled()`` turns true: :class:`RequestCancelled`)."""
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            wait = remaining if cancelled is None else min(remaining, _CANCEL_POLL_S)
            try:
                line = self._lines.get(timeout=max(wait, 0.0))
            except queue.Empty:
                if cancelled is not None and cancelled():
                    self.kill()
                    raise RequestCancelled(f"{self.label} was stopped: the run is ending") from None
                if time.monotonic() < deadline:
                    continue
                self.kill()
                raise self._error(f"{self.label} did not answer within {timeout:g} s") from None
            if line is None:
                code = self._proc.wait()
                raise self._error(f"{self.label} exited (exit code {code})")
            try:
                message = json.loads(line)
            except ValueError:
                continue  # not a protocol line
            if isinstance(message, dict):
                return message

    def request(
        self,
        message: Mapping[str, Any],
        *,
        reply: str,
        timeout: float,
        cancelled: Callable[[], bool] | None = None,
    ) -> dict[str, Any]:
        """Send ``message`` with a fresh ``id``; the reply of type ``reply`` with that id."""
        self._next_id += 1
        ident = self._next_id
        self.send({**message, "id": ident})
        deadline = time.monotonic() + timeout
        while True:
            answer = self.receive(max(deadline - time.monotonic(), 0.0), cancelled=cancelled)
            if answer.get("type") == reply and answer.get("id") == ident:
                return answer

    def send(self, message: Mapping[str, Any]) -> None:
        assert self._proc.stdin is not None
        try:
            self._proc.stdin.write(json.dumps(message) + "\n")
            self._proc.stdin.flush()
        except (OSError, ValueError) as exc:  # ValueError: stdin already closed
            raise self._error(f"{self.label} is gone: {exc}") from None

    @property
    def alive(self) -> bool:
        return self._proc.poll() is None

    def kill(self) -> None:
        if self._proc.poll() is None:
            self._proc.kill()
            self._proc.wait()

    def close(self, goodbye: Mapping[str, Any] | None = None, *, wait_s: float = 10.0) -> None:
        """Ask the process to exit (``goodbye``, then EOF), kill it if it lingers."""
        if self._proc.poll() is None and self._proc.stdin is not None:
            try:
                if goodbye is not None:
                    self._proc.stdin.write(json.dumps(goodbye, separators=(",", ":")) + "\n")
                self._proc.stdin.close()
                self._proc.wait(timeout=wait_s)
            except (OSError, ValueError, subprocess.TimeoutExpired):
                pass
        self.kill()
        if self._track_root is not None:
            children.forget(self._track_root)
        self._close_stderr()

    def _close_stderr(self) -> None:
        if not isinstance(self._stderr, int):
            self._stderr.close()
            self._stderr = subprocess.DEVNULL
