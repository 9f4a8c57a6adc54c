"""The drift record of one project on the state branch: ``<project>/drift.json``.

Written by the scheduled drift check (``averos-ci drift`` over every project) after each
check, read by the dashboard. Versioned (``formatVersion``) like every persisted file; a
reader meeting a newer version says so instead of guessing.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from averos_ci.errors import StateError

if TYPE_CHECKING:
    from averos_ci.state.drift import DriftReport

DRIFT = "drift.json"
DRIFT_FORMAT_VERSION = 1
CHANGES = ("missing", "modified", "deleted")  # a generated file: gone, edited, deleted by a user


@dataclass(frozen=True)
class DriftFile:
    path: str
    change: str  # one of CHANGES


@dataclass(frozen=True)
class DriftRecord:
    checked_at: str
    drifted: bool
    files: tuple[DriftFile, ...] = ()
    absent: str | None = None  # why the whole application is missing, if it is
    run_url: str | None = None


def drift_record(
    report: DriftReport, *, checked_at: str, run_url: str | None = None
) -> dict[str, Any]:
    """The ``drift.json`` content for a drift check's report (what the scheduled check writes)."""
    files = [{"path": p, "change": "missing"} for p in sorted(report.missing)]
    files += [{"path": p, "change": "modified"} for p in report.modified]
    files += [{"path": p, "change": "deleted"} for p in report.deleted]
    return {
        "formatVersion": DRIFT_FORMAT_VERSION,
        "checkedAt": checked_at,
        "drifted": report.has_drift,
        "absent": report.absent,
        "files": files,
        "runUrl": run_url,
    }


def parse_drift(raw: bytes, *, where: str) -> DriftRecord:
    """``drift.json`` read from the state branch (anyone who can push there wrote it)."""
    try:
        data = json.loads(raw.decode("utf-8"))
    except ValueError:
        raise StateError(f"{where} is not JSON", hint="the next drift check rewrites it") from None
    if not isinstance(data, dict):
        raise StateError(f"{where} is not a JSON object", hint="the next drift check rewrites it")
    version = data.get("formatVersion")
    if version != DRIFT_FORMAT_VERSION:
        raise StateError(
            f"{where} has formatVersion {version!r}; this averos-ci reads {DRIFT_FORMAT_VERSION}",
            hint="upgrade averos-ci",
        )
    files = data.get("files")
    return DriftRecord(
        checked_at=str(data.get("checkedAt") or ""),
        drifted=data.get("drifted") is True,
        files=tuple(
            DriftFile(str(f.get("path")), str(f.get("change")))
            for f in (files if isinstance(files, list) else [])
            if isinstance(f, dict)
        ),
        absent=str(data["absent"]) if data.get("absent") else None,
        run_url=str(data["runUrl"]) if data.get("runUrl") else None,
    )
