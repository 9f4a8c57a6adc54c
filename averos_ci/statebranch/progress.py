"""Writing one project's directory of the state branch while an apply runs: optimistic
pushes that re-apply over other projects' commits (averos_ci.statebranch.landing), and a
RunnerEventListener that pushes checkpoints and the partly generated workspace after
finished nodes.

Those progress pushes are best effort: a checkpoint only saves re-running nodes, so one that
another project's job beat is not re-applied and pushed again (in a matrix of N jobs that
multiplied the collisions); the next progress push, or the push that must land (claim,
failure, final state), carries it. After such a rejection the next progress push waits the
back-off of a re-applied push too (jittered, doubling while they keep being rejected), and so
does the first progress push of an apply whose claim was re-applied: a busy branch is left to
the pushes that must land. The rejection still fetches the tip, so the next
push starts from it and a foreign edit of this project stops the run at once.
"""

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
        """Land ``<project>/`` as it is now: re-applied over other projects' commits."""
        commit = self._commit(message)
        landed = land(
            self.sb, project=self.project, commit=commit, base=self.tip, backoff=self.backoff
        )
        if landed is None:
            raise self._refused()
        self.tip = landed.tip
        self.retries += landed.retries

    def try_push(self, message: str) -> bool:
        """Push ``<project>/`` once; ``False`` when another project's job moved the branch.
        Nothing is re-applied: the fetched tip becomes the base of the next push."""
        commit = self._commit(message)
        if self.sb.push(commit):
            self.tip = commit
            return True
        tip = self.sb.fetch()
        if self.sb.subtree(tip, self.project) != self.sb.subtree(self.tip, self.project):
            raise self._refused()
        self.tip = tip
        return False

    def _commit(self, message: str) -> str:
        return self.sb.commit(parent=self.tip, subdir=self.project, src=self.src, message=message)

    def _refused(self) -> ApplyRefused:
        return ApplyRefused(
            f"the state of project {self.project!r} on {self.sb.branch!r} was changed by "
            "another job during this apply",
            hint="`averos-ci state show` says what is there now (e.g. an "
            "`averos-ci state abandon`); re-run the job to apply again",
        )


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
        self._quiet_until = 0.0  # no progress push before (monotonic): the branch was busy
        self.pushed = 0  # progress pushes that landed
        self.left = 0  # progress pushes another job's push beat, left to the next push
        self._beaten = 0  # of them in a row

    def busy(self, retries: int) -> None:
        """The push that claimed the apply was re-applied ``retries`` times over other
        projects' commits: the branch is busy, so the first progress push waits the back-off
        of that many rejections (and doubles from there if it is beaten too)."""
        if retries > 0:
            self._hold_back(retries)

    def _hold_back(self, beaten: int) -> float:
        """No progress push for the back-off of ``beaten`` rejections in a row; the wait."""
        self._beaten = beaten
        wait = self.writer.backoff.delay(beaten)
        self._quiet_until = time.monotonic() + wait
        return wait

    def on_event(self, event: Any) -> None:
        kind = str(getattr(event, "type", ""))
        if kind not in ("NODE_SUCCEEDED", "NODE_FAILED", "NODE_SKIPPED"):
            return
        if getattr(event, "resumed", False) or getattr(event, "will_retry", False):
            return
        now = time.monotonic()
        if now - self._last < self.interval or now < self._quiet_until:
            return
        self.flush(f"progress: {getattr(event, 'node_id', '')}", must_land=False)

    def flush(self, message: str, *, must_land: bool = True) -> None:
        """Push the checkpoints and the workspace so far; ``must_land=False``: one try."""
        writer = self.writer
        snapshot(changed_files(writer.sb.repo, self.workspace_root), writer.src / PARTIAL)
        # with a state key, what a later job resumes from is authenticated (statebranch/seal.py)
        seal_progress(writer.src, key=self.state_key, project=writer.project)
        text = f"averos-ci: {writer.project}: {message}"
        self._last = time.monotonic()  # a rejected try waits for the interval like a landed one
        if must_land:
            writer.push(text)
        elif not writer.try_push(text):
            self.left += 1
            wait = self._hold_back(self._beaten + 1)
            print(
                f"{writer.sb.branch} moved (another project's job pushed): progress of "
                f"{writer.project}/ left to the next push (none for {wait:.2f} s)"
            )
            return
        self._beaten = 0
        self.pushed += 1
