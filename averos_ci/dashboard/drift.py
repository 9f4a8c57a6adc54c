"""The drift record of one project on the state branch: ``.drift/<project>.json``.

Written by the scheduled drift check (``averos-ci github drift``,
:mod:`averos_ci.statebranch.drift_record`) when its findings change, removed when the project
is clean; read by the dashboard. Versioned (``formatVersion``) like every persisted file; a
reader meeting a newer version says so instead of guessing.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from averos_ci.errors import StateError
from averos_ci.statebranch.drift_record import FORMAT_VERSION as DRIFT_FORMAT_VERSION
from averos_ci.statebranch.drift_record import RECORDS as DRIFT_RECORDS
from averos_ci.statebranch.drift_record import record_path as drift_path

CHANGES = ("missing", "modified", "deleted")  # a generated file: gone, edited, deleted by a user


@dataclass(frozen=True)
class DriftFile:
    path: str
    change: str  # one of CHANGES


@dataclass(frozen=True)
class Unapplied:
    """The default branch's manifest differs from the applied one: a merge never applied."""

    applied: str | None  # the applied manifest's hash
    default_branch: str | None  # the default branch's manifest's hash
    changes: int  # nodes a plan would add, update or remove, and conflicts


@dataclass(frozen=True)
class DriftRecord:
    checked_at: str
    drifted: bool  # generated files are gone or edited, or the application is absent
    files: tuple[DriftFile, ...] = ()
    absent: str | None = None  # why the whole application is missing, if it is
    run_url: str | None = None
    markers: tuple[str, ...] = ()  # generated files holding unresolved conflict markers
    unapplied: Unapplied | None = None
    since: str | None = None  # when the check first found it (kept while it lasts)
    commit: str | None = None  # the default branch's commit checked

    @property
    def found(self) -> bool:
        """Anything to see: drift, conflict markers or unapplied changes."""
        return self.drifted or bool(self.markers) or self.unapplied is not None


def parse_drift(raw: bytes, *, where: str) -> DriftRecord:
    """A drift record read from the state branch (anyone who can push there wrote it)."""
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
    markers = data.get("markers")
    return DriftRecord(
        checked_at=str(data.get("checkedAt") or ""),
        drifted=data.get("drifted") is True,
        files=tuple(
            DriftFile(str(f.get("path")), str(f.get("change")))
            for f in (files if isinstance(files, list) else [])
            if isinstance(f, dict)
        ),
        absent=_text(data.get("absent")),
        run_url=_text(data.get("runUrl")),
        markers=tuple(str(m) for m in (markers if isinstance(markers, list) else [])),
        unapplied=_unapplied(data.get("unapplied")),
        since=_text(data.get("since")),
        commit=_text(data.get("commit")),
    )


def _unapplied(value: Any) -> Unapplied | None:
    if not isinstance(value, dict):
        return None
    counts = (value.get(k) for k in ("toAdd", "toUpdate", "toRemove", "conflicts"))
    return Unapplied(
        applied=_text(value.get("applied")),
        default_branch=_text(value.get("defaultBranch")),
        changes=sum(n for n in counts if isinstance(n, int) and not isinstance(n, bool)),
    )


def _text(value: Any) -> str | None:
    return str(value) if value else None


__all__ = [
    "CHANGES",
    "DRIFT_FORMAT_VERSION",
    "DRIFT_RECORDS",
    "DriftFile",
    "DriftRecord",
    "Unapplied",
    "drift_path",
    "parse_drift",
]
