"""The scheduled drift check's record of one project on the state branch:
``.drift/<project>.json``, read by the dashboard (:mod:`averos_ci.dashboard.drift`).

The records live outside the project folders: a commit into ``<project>/`` would move what an
apply's optimistic lock watches (:mod:`averos_ci.statebranch.landing`), and no project can be
named ``.drift`` (a project name never starts with ``.``). A record says what the check found
— generated files gone or edited, conflict markers, merged but unapplied manifest changes —,
since when (``since``, kept while it lasts), the open issue that says so (``issue``) and which
check wrote it; a clean project has none.
It is written only when the findings change: a check that finds the same thing commits nothing.
"""

from __future__ import annotations

import json
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from averos_ci._fs import safe_relpath
from averos_ci.plan.canonical import canonical_json
from averos_ci.statebranch.landing import Backoff, tries
from averos_ci.statebranch.state_branch import GitError, StateBranch

if TYPE_CHECKING:
    from averos_ci.state.drift import DriftReport

RECORDS = ".drift"
FORMAT_VERSION = 1
# what a change is judged on (``issue``: the next check fetches the open issue it names)
FINDINGS = ("drifted", "absent", "files", "markers", "unapplied", "issue")


def record_path(project: str) -> str:
    """Where ``project``'s record lives on the state branch (its name checked first)."""
    return f"{RECORDS}/{safe_relpath(project)}.json"


def record_project(path: str) -> str | None:
    """The project a state-branch path is the record of, or ``None``."""
    if path.startswith(f"{RECORDS}/") and path.endswith(".json"):
        return path[len(RECORDS) + 1 : -len(".json")] or None
    return None


def findings(
    report: DriftReport | None,
    *,
    unapplied: dict[str, Any] | None = None,
    issue: int | None = None,
) -> dict[str, Any] | None:
    """A check's findings as the record holds them; ``None`` when there are none (clean).

    ``unapplied``: the applied and the default branch's manifest hashes and the counts of
    what a plan would change (``applied``, ``defaultBranch``, ``toAdd`` …); ``issue``: the
    number of the project's open drift issue."""
    files: list[dict[str, str]] = []
    markers: list[str] = []
    drifted, absent = False, None
    if report is not None:
        files = [{"path": p, "change": "missing"} for p in sorted(report.missing)]
        files += [{"path": p, "change": "modified"} for p in report.modified]
        files += [{"path": p, "change": "deleted"} for p in report.deleted]
        markers = sorted(report.markers)
        drifted, absent = report.has_drift, report.absent
    if not drifted and not markers and unapplied is None:
        return None
    return {
        "drifted": drifted,
        "absent": absent,
        "files": files if drifted else [],
        "markers": markers,
        "unapplied": unapplied,
        "issue": issue,
    }


def save_record(
    sb: StateBranch,
    project: str,
    found: dict[str, Any] | None,
    *,
    checked_at: str,
    commit: str,
    run_url: str | None,
    backoff: Backoff,
    sleep: Callable[[float], None] = time.sleep,
) -> str | None:
    """Bring ``project``'s record on the branch up to date with ``found`` (``None``: clean, the
    record is removed). The state-branch commit pushed, or ``None`` when nothing changed (or
    the branch does not exist yet: nothing was applied). A push rejected because another job
    moved the branch is rebuilt on the fetched tip and pushed again while ``backoff`` allows."""
    path = record_path(project)
    for _ in tries(backoff, sleep=sleep):
        tip = sb.fetch()
        if tip is None:
            return None
        old = read_record(sb.read(tip, path))
        if says(old, found):
            return None  # the same findings (an unreadable record is rewritten or removed)
        with tempfile.TemporaryDirectory(prefix="averos-ci-drift-") as tmp:
            file: Path | None = None
            if found is not None:
                since = old.get("since") if old else None  # it lasts
                record = {
                    "formatVersion": FORMAT_VERSION,
                    "project": project,
                    **found,
                    "since": since if isinstance(since, str) and since else checked_at,
                    "checkedAt": checked_at,
                    "commit": commit,
                    "runUrl": run_url,
                }
                file = Path(tmp) / "record.json"
                file.write_text(canonical_json(record), encoding="utf-8")
            what = "cleared" if found is None else "recorded"
            message = f"averos-ci: drift of {project} {what} ({commit[:12]}) [skip ci]"
            made = sb.commit_paths(parent=tip, changes={path: file}, message=message)
            if sb.push(made):
                return made
    raise GitError(
        f"could not push {sb.branch!r} with the drift record of {project!r}: other jobs kept "
        "moving it",
        hint="re-run the job; for a larger matrix raise github.pushRetrySeconds",
    )


def read_record(raw: bytes | None) -> dict[str, Any] | None:
    """The record as the branch holds it: ``None`` when there is none, ``{}`` when it cannot
    be read (not JSON, another format: it names no finding and is rewritten or removed)."""
    if raw is None:
        return None
    try:
        data = json.loads(raw.decode("utf-8"))
    except ValueError:
        return {}
    ok = isinstance(data, dict) and data.get("formatVersion") == FORMAT_VERSION
    return data if ok else {}


def says(record: dict[str, Any] | None, found: dict[str, Any] | None) -> bool:
    """``record`` (:func:`read_record`) already holds ``found``: nothing to write."""
    if record is None or found is None:
        return record is None and found is None
    return _findings_of(record) == found


def _findings_of(record: dict[str, Any]) -> dict[str, Any]:
    return {k: record.get(k) for k in FINDINGS}
