"""What the dashboard shows, read from the state branch: one :class:`ProjectView` per project
folder, inside one :class:`Dashboard`. Plain immutable values: the pages render them, the
tests assert on them."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from typing import Any

from averos_ci.dashboard.drift import DriftRecord

# A run record's name is its finishing time with the colons dropped, then the commit:
# ``2026-12-04T170102.345Z-0123456789ab`` (averos_ci.statebranch.claim.finish).
_RUN_TIME = re.compile(r"^(\d{4}-\d\d-\d\d)T(\d\d)(\d\d)(\d\d)(?:\.(\d+))?Z")


class ClaimStatus(StrEnum):
    RUNNING = "running"  # progress within the threshold
    STUCK = "stuck"  # no progress for longer than the threshold
    FAILED = "failed"  # a node failed: the progress waits for a re-run or an abandon


@dataclass(frozen=True)
class Run:
    """One run record (``<project>/runs/<id>.json``): an apply, or an operator's action."""

    run_id: str
    action: str  # apply, rollback, abandon ...
    plan_hash: str | None
    sha: str | None
    pr: int | None
    run_url: str | None
    finished_at: datetime | None
    duration_ms: int | None
    approver: str | None  # the record's ``approvedBy``, when the apply recorded it
    success: bool | None
    actor: str | None = None
    reason: str | None = None

    @property
    def failed(self) -> bool:
        return self.success is False or self.action == "abandon"


@dataclass(frozen=True)
class Commit:
    sha: str
    at: datetime
    message: str


@dataclass(frozen=True)
class Claim:
    """An apply that holds the project: running, stuck or failed."""

    status: ClaimStatus
    plan_hash: str | None
    sha: str | None
    pr: int | None
    run_url: str | None
    last_progress: datetime | None
    checkpoints: dict[str, int]  # status -> nodes
    partial_files: int


@dataclass(frozen=True)
class ProjectView:
    name: str
    serial: int | None = None
    manifest_hash: str | None = None
    built_at: str | None = None
    runs: tuple[Run, ...] = ()  # oldest first
    claim: Claim | None = None
    drift: DriftRecord | None = None
    commits: tuple[Commit, ...] = ()  # newest first
    error: str | None = None  # a file of this folder could not be read

    @property
    def last_apply(self) -> Run | None:
        found = [r for r in self.runs if r.action in ("apply", "rollback") and r.sha]
        return found[-1] if found else None

    @property
    def drifted(self) -> bool:
        return self.drift is not None and self.drift.drifted

    @property
    def failures(self) -> tuple[Run, ...]:
        return tuple(r for r in self.runs if r.failed)


@dataclass(frozen=True)
class Dashboard:
    branch: str
    tip: str
    generated_at: datetime
    stuck_after: timedelta
    projects: tuple[ProjectView, ...]

    def claims(self, *statuses: ClaimStatus) -> list[ProjectView]:
        return [p for p in self.projects if p.claim is not None and p.claim.status in statuses]

    @property
    def drifted(self) -> list[ProjectView]:
        return [p for p in self.projects if p.drifted]


def run_from_record(run_id: str, data: dict[str, Any]) -> Run:
    """A run record as the state branch holds it; every field is optional (older records)."""
    summary = data.get("summary") if isinstance(data.get("summary"), dict) else {}
    assert isinstance(summary, dict)
    approver = data.get("approvedBy")
    if isinstance(approver, list):
        approver = ", ".join(str(a) for a in approver)
    success = summary.get("success")
    return Run(
        run_id=run_id,
        action=str(data.get("action") or "apply"),
        plan_hash=_text(data.get("planHash")),
        sha=_text(data.get("sha")),
        pr=data["pr"] if isinstance(data.get("pr"), int) else None,
        run_url=_text(data.get("runUrl")),
        finished_at=run_time(run_id),
        duration_ms=_int(summary.get("durationMs")),
        approver=_text(approver),
        success=success if isinstance(success, bool) else None,
        actor=_text(data.get("actor")),
        reason=_text(data.get("reason")),
    )


def run_time(run_id: str) -> datetime | None:
    m = _RUN_TIME.match(run_id)
    if m is None:
        return None
    day, hh, mm, ss, frac = m.groups()
    try:
        at = datetime.fromisoformat(f"{day}T{hh}:{mm}:{ss}+00:00")
    except ValueError:
        return None
    return at + timedelta(microseconds=int((frac or "0")[:6].ljust(6, "0")))


def parse_time(value: object) -> datetime | None:
    """An ISO 8601 time from a file of the branch (``...Z`` included); ``None`` if it is not."""
    if not isinstance(value, str) or not value:
        return None
    try:
        at = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return at if at.tzinfo else at.replace(tzinfo=UTC)


def _text(value: object) -> str | None:
    return str(value) if value not in (None, "") else None


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None
