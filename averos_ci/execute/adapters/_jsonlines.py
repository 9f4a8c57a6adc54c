"""One long-lived helper process spoken to in JSON lines over stdio.

Shared by the Angular schematics driver and the Node-module adapter's host: requests go
to stdin one JSON object a line, replies come back on stdout the same way (any other line
on stdout is ignored), stderr goes to a log file — with every secret the process knows
scrubbed, in every form (:mod:`averos_ci._secrets`): the log is uploaded as an artifact, and
the child is third-party code that may echo its options. The process runs in its own process
group; with ``track_root`` it is recorded there (see ``_children``) so that a run
resumed after a SIGKILL can end an orphan before touching the workspace.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import select
import subprocess
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import IO, Any

from averos_ci import _secrets
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
        self._stderr: _ScrubbedLog | None = None
        write: int = subprocess.DEVNULL
        if stderr_log is not None:
            stderr_log.parent.mkdir(parents=True, exist_ok=True)
            read, write = os.pipe()
            self._stderr = _ScrubbedLog(read, stderr_log)
        held = children.HeldSignals()  # until the group is live: a Ctrl-C then ends it
        try:
            self._proc = subprocess.Popen(
                list(argv),
                cwd=cwd,
                env=dict(env),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=write,
                text=True,
                encoding="utf-8",
                bufsize=1,
                start_new_session=True,
            )
        except OSError as exc:
            held.release()
            self._close_stderr()
            raise error(f"{label} could not be started: {exc}") from None
        except BaseException:
            held.release()
            raise
        finally:
            if write != subprocess.DEVNULL:
                os.close(write)  # the child's copy only: the log ends when the child's does
        # live while it runs: a second signal ends its group at once with the run's other
        # commands (children.end_all), not after close()'s goodbye wait
        self._live = contextlib.ExitStack()
        self._group = self._live.enter_context(children.live(self._proc.pid, label))
        try:
            if track_root is not None:
                children.record(track_root, self._proc.pid, marker)
        finally:
            held.release()  # a signal received meanwhile acts now (the run ends live groups)
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
                if self._group.ended:  # ended by the run's abort, not a failure of its own
                    children.abandoned()
                if self._stderr is not None:
                    self._stderr.sync(final=True)
                raise self._error(f"{self.label} exited (exit code {code})")
            try:
                message = json.loads(line)
            except ValueError:
                continue  # not a protocol line
            if isinstance(message, dict):
                if self._stderr is not None:  # what it printed before replying is in the log
                    self._stderr.sync()
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
            if self._group.ended:
                children.abandoned()
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
        self._live.close()
        if self._track_root is not None:
            children.forget(self._track_root)
        self._close_stderr()

    def _close_stderr(self) -> None:
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None


class _ScrubbedLog:
    """Copies a child's stderr (the read end of its pipe) to ``path``, a line at a time, with
    the known secrets scrubbed. A thread keeps the pipe drained (a child blocked on a full
    pipe would stop answering); :meth:`sync` copies what is there now, so stderr printed
    before a reply is in the log when the reply is read. A line is written whole — a secret
    cut across two writes is still found — except at the end or beyond :data:`_MAX_LINE`."""

    _MAX_LINE = 1 << 20
    _POLL_S = 0.1

    def __init__(self, fd: int, path: Path) -> None:
        self._fd = fd
        os.set_blocking(fd, False)
        self._file: IO[bytes] | None = path.open("ab")
        self._pending = b""
        self._eof = False
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._pump, daemon=True)
        self._thread.start()

    def _pump(self) -> None:
        while not self._stop.is_set() and not self._eof:
            ready, _, _ = select.select([self._fd], [], [], self._POLL_S)
            if ready:
                self.sync()

    def sync(self, *, final: bool = False) -> None:
        with self._lock:
            if self._file is None:
                return
            while not self._eof:
                try:
                    chunk = os.read(self._fd, 65536)
                except BlockingIOError:
                    break
                except OSError:
                    chunk = b""
                self._pending += chunk
                self._eof = not chunk
            whole = final or self._eof or len(self._pending) > self._MAX_LINE
            cut = len(self._pending) if whole else self._pending.rfind(b"\n") + 1
            if cut:
                text = self._pending[:cut].decode("utf-8", "surrogateescape")
                self._file.write(_secrets.scrub(text).encode("utf-8", "surrogateescape"))
                self._file.flush()
                self._pending = self._pending[cut:]

    def close(self) -> None:
        self._stop.set()
        self._thread.join()
        self.sync(final=True)
        with self._lock:
            if self._file is not None:
                self._file.close()
                self._file = None
            os.close(self._fd)
