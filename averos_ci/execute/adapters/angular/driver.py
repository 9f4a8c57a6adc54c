"""Python side of driver.js: one Node process, requests and replies as JSON lines."""

from __future__ import annotations

import json
import queue
import subprocess
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from . import children

DRIVER_JS = Path(__file__).with_name("driver.js")
START_TIMEOUT_S = 120.0


class DriverError(Exception):
    """The driver could not start, died, or did not answer in time."""


@dataclass
class Reply:
    ok: bool
    changes: list[tuple[str, str]]  # (kind, path): create | update | delete
    log: list[str]
    error: str | None = None
    duration_ms: int = 0
    raw: dict[str, Any] = field(default_factory=dict)


class Driver:
    def __init__(
        self,
        *,
        node: str,
        root: Path,
        env: Mapping[str, str],
        stderr_log: Path | None,
        track: bool = True,
    ) -> None:
        self.root = root
        self._track = track  # record the process so that a resumed run can end an orphan
        self._stderr: IO[bytes] | int = subprocess.DEVNULL
        if stderr_log is not None:
            stderr_log.parent.mkdir(parents=True, exist_ok=True)
            self._stderr = stderr_log.open("ab")
        self._proc = subprocess.Popen(
            [node, str(DRIVER_JS), "--root", str(root)],
            cwd=root,
            env=dict(env),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            text=True,
            encoding="utf-8",
            bufsize=1,
            start_new_session=True,
        )
        if track:
            children.record(root, self._proc.pid, DRIVER_JS.name)
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self._next_id = 0
        hello = self._receive(START_TIMEOUT_S)
        if hello.get("type") != "ready":
            self.close()
            raise DriverError(str(hello.get("error") or f"unexpected driver greeting: {hello}"))
        self.info = hello

    def _read(self) -> None:
        assert self._proc.stdout is not None
        for line in self._proc.stdout:
            self._lines.put(line)
        self._lines.put(None)

    def _receive(self, timeout: float) -> dict[str, Any]:
        while True:
            try:
                line = self._lines.get(timeout=timeout)
            except queue.Empty:
                self.kill()
                raise DriverError(
                    f"the schematics driver did not answer within {timeout:g} s"
                ) from None
            if line is None:
                code = self._proc.wait()
                raise DriverError(f"the schematics driver exited (exit code {code})")
            try:
                message = json.loads(line)
            except ValueError:
                continue  # not a protocol line
            if isinstance(message, dict):
                return message

    def run(
        self,
        collection: str,
        schematic: str,
        options: Mapping[str, Any],
        *,
        dry_run: bool,
        journal: Path | None,
        timeout: float,
    ) -> Reply:
        self._next_id += 1
        request = {
            "id": self._next_id,
            "collection": collection,
            "schematic": schematic,
            "options": dict(options),
            "dryRun": dry_run,
            "journal": str(journal) if journal is not None else None,
        }
        self._send(request)
        while True:
            message = self._receive(timeout)
            if message.get("type") == "result" and message.get("id") == self._next_id:
                break
        return Reply(
            ok=bool(message.get("ok")),
            changes=[(str(c["kind"]), str(c["path"])) for c in message.get("changes", [])],
            log=[str(x) for x in message.get("log", [])],
            error=message.get("error"),
            duration_ms=int(message.get("durationMs", 0)),
            raw=message,
        )

    def read(self, relative: str, *, dry_run: bool, timeout: float = 60.0) -> str | None:
        """A file as the schematics see it (a dry run's earlier nodes included)."""
        self._next_id += 1
        request = {"op": "read", "id": self._next_id, "path": relative, "dryRun": dry_run}
        self._send(request)
        while True:
            message = self._receive(timeout)
            if message.get("type") == "read" and message.get("id") == self._next_id:
                content = message.get("content")
                return content if isinstance(content, str) else None

    def _send(self, request: dict[str, Any]) -> None:
        assert self._proc.stdin is not None
        try:
            self._proc.stdin.write(json.dumps(request) + "\n")
            self._proc.stdin.flush()
        except OSError as exc:
            raise DriverError(f"the schematics driver is gone: {exc}") from None

    @property
    def alive(self) -> bool:
        return self._proc.poll() is None

    def kill(self) -> None:
        if self._proc.poll() is None:
            self._proc.kill()
            self._proc.wait()

    def close(self) -> None:
        if self._proc.poll() is None and self._proc.stdin is not None:
            try:
                self._proc.stdin.write('{"op":"exit"}\n')
                self._proc.stdin.close()
                self._proc.wait(timeout=10)
            except (OSError, subprocess.TimeoutExpired):
                pass
        self.kill()
        if self._track:
            children.forget(self.root)
        if not isinstance(self._stderr, int):
            self._stderr.close()


class DriverFiles:
    """:class:`~.files.Files` read through the driver."""

    def __init__(self, driver: Driver, *, dry_run: bool) -> None:
        self.driver = driver
        self.dry_run = dry_run

    def read(self, relative: str) -> str | None:
        return self.driver.read(relative, dry_run=self.dry_run)
