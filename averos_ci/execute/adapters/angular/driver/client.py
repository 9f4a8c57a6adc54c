"""Python side of driver.js: one Node process, requests and replies as JSON lines."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from averos_ci.execute.adapters._jsonlines import JsonLinesError, JsonLinesProcess

DRIVER_JS = Path(__file__).with_name("driver.js")
START_TIMEOUT_S = 120.0


class DriverError(JsonLinesError):
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
        # track: record the process so that a resumed run can end an orphan
        self._io = JsonLinesProcess(
            [node, str(DRIVER_JS), "--root", str(root)],
            cwd=root,
            env=env,
            stderr_log=stderr_log,
            label="the schematics driver",
            track_root=root if track else None,
            marker=DRIVER_JS.name,
            error=DriverError,
        )
        hello = self._io.receive(START_TIMEOUT_S)
        if hello.get("type") != "ready":
            self.close()
            raise DriverError(str(hello.get("error") or f"unexpected driver greeting: {hello}"))
        self.info = hello

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
        request = {
            "collection": collection,
            "schematic": schematic,
            "options": dict(options),
            "dryRun": dry_run,
            "journal": str(journal) if journal is not None else None,
        }
        message = self._io.request(request, reply="result", timeout=timeout)
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
        request = {"op": "read", "path": relative, "dryRun": dry_run}
        message = self._io.request(request, reply="read", timeout=timeout)
        content = message.get("content")
        return content if isinstance(content, str) else None

    @property
    def alive(self) -> bool:
        return self._io.alive

    def kill(self) -> None:
        self._io.kill()

    def close(self) -> None:
        self._io.close({"op": "exit"})


class DriverFiles:
    """:class:`~averos_ci.execute.adapters.angular.files.Files` read through the driver."""

    def __init__(self, driver: Driver, *, dry_run: bool) -> None:
        self.driver = driver
        self.dry_run = dry_run

    def read(self, relative: str) -> str | None:
        return self.driver.read(relative, dry_run=self.dry_run)
