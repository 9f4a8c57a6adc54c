"""Writing one project's directory of the state branch while an apply runs: optimistic
pushes that re-apply over other projects' commits (averos_ci.statebranch.landing), and a
RunnerEventListener that pushes checkpoints and the partly generated workspace after
finished nodes."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from averos_ci.statebranch.claim import PARTIAL as PARTIAL
from averos_ci.statebranch.errors import ApplyRefused
from averos_ci.statebranch.landing import Backoff, land
from averos_ci.statebranch.seal import seal_progress
from averos_ci.statebranch.state_branch import StateBranch
from averos_ci.statebranch.workspace import changed_files, snapshot


class ProjectWriter:
    """Pushes ``<project>/`` of the state branch; re-applies it over other projects' commits
    (:func:`~averos_ci.statebranch.landing.land`: back-off, time budget), and refuses when someone
    else changed this project."""

    def __init__(
        self, sb: StateBranch, project: str, src: Path, tip: str | None, backoff: Backoff
    ) -> None:
        self.sb, self.project, self.src, self.tip = sb, project, src, tip
        self.backoff = backoff
        self.retries = 0  # pushes re-applied over other projects' commits, for the report

    def push(self, message: str) -> None:
        commit = self.sb.commit(parent=self.tip, subdir=self.project, src=self.src, message=message)
        landed = land(
            self.sb, project=self.project, commit=commit, base=self.tip, backoff=self.backoff
        )
        if landed is None:
            raise ApplyRefused(
                f"the state of project {self.project!r} on "
                f"{self.sb.branch!r} was changed by another job during "
                "this apply",
                hint="`averos-ci state show` says what is there now (e.g. an "
                "`averos-ci state abandon`); re-run the job to apply again",
            )
        self.tip = landed.tip
        self.retries += landed.retries


class ProgressPusher:
    """A RunnerEventListener: after finished nodes (throttled), push checkpoints + workspace."""

    def __init__(
        self,
        writer: ProjectWriter,
        interval: float,
        *,
        workspace_root: Path,
        state_key: str | None,
    ) -> None:
        self.writer, self.interval = writer, interval
        self.workspace_root, self.state_key = workspace_root, state_key
        self._last = time.monotonic()
        self.pushed = 0

    def on_event(self, event: Any) -> None:
        kind = str(getattr(event, "type", ""))
        if kind not in ("NODE_SUCCEEDED", "NODE_FAILED", "NODE_SKIPPED"):
            return
        if getattr(event, "resumed", False) or getattr(event, "will_retry", False):
            return
        if time.monotonic() - self._last < self.interval:
            return
        self.flush(f"progress: {getattr(event, 'node_id', '')}")

    def flush(self, message: str) -> None:
        snapshot(
            changed_files(self.writer.sb.repo, self.workspace_root),
            self.writer.src / PARTIAL,
        )
        # with a state key, what a later job resumes from is authenticated (statebranch/seal.py)
        seal_progress(self.writer.src, key=self.state_key, project=self.writer.project)
        self.writer.push(f"averos-ci: {self.writer.project}: {message}")
        self._last = time.monotonic()
        self.pushed += 1
