"""``averos-ci github drift`` (``schedule``, ``workflow_dispatch``): check one project of the
default branch against its state on the state branch and keep one issue per project that
says so.

Three findings open the project's issue (:mod:`averos_ci.forge.issue_sync`, label
``averos-drift``): *drift* — the generated application in the checkout lacks files the state
says were generated, or is gone (:mod:`averos_ci.state.drift`) —, *conflict markers* left in
its generated files (the next apply refuses them), and *unapplied changes* — the default
branch's manifest differs from the applied one: a change was merged and never applied. While
one lasts the issue is updated in place when what it says changes (what, since when, the
commands to see it); when all are gone it is closed with a comment. The findings are also
recorded on the state branch for the dashboard (``.drift/<project>.json``,
:mod:`averos_ci.statebranch.drift_record`), committed only when they change. The check never
repairs or applies.
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from averos_ci._actions import annotate
from averos_ci._markdown import code, code_block
from averos_ci.execute.regen.markers import find_markers
from averos_ci.forge.context import FlowContext
from averos_ci.forge.issue_sync import IssueAction, IssueSync, Label, OpenIssues, TrackedIssue
from averos_ci.plan.model import PlanDiff
from averos_ci.planning import plan_project
from averos_ci.state.drift import DriftReport, render_drift
from averos_ci.statebranch.drift_record import (
    findings,
    read_record,
    record_path,
    save_record,
    says,
)
from averos_ci.statebranch.landing import Backoff
from averos_ci.statebranch.project_state import BranchState

LABEL = Label(
    name="averos-drift",
    color="d93f0b",
    description="averos-ci: an application drifted from its state, or merged changes wait",
)
_SINCE = re.compile(r"^<!-- averos-ci:drift-since (\S+) (\S+) (\S+) -->$", re.MULTILINE)


@dataclass(frozen=True)
class Unapplied:
    """The default branch's manifest against the applied one."""

    to_add: int
    to_update: int
    to_remove: int
    conflicts: int
    applied: str | None = None  # the applied manifest's hash (None: nothing applied yet)
    default_branch: str = ""  # the default branch's manifest's hash

    @classmethod
    def of(
        cls, diff: PlanDiff, *, applied: str | None = None, default_branch: str = ""
    ) -> Unapplied | None:
        counts = len(diff.to_add), len(diff.to_update), len(diff.to_remove), len(diff.conflicts)
        found = cls(*counts, applied=applied, default_branch=default_branch)
        return found if found.total else None

    def to_record(self) -> dict[str, object]:
        return {
            "applied": self.applied,
            "defaultBranch": self.default_branch,
            "toAdd": self.to_add,
            "toUpdate": self.to_update,
            "toRemove": self.to_remove,
            "conflicts": self.conflicts,
        }

    @property
    def total(self) -> int:
        return self.to_add + self.to_update + self.to_remove + self.conflicts


@dataclass(frozen=True)
class DriftCheck:
    project: str
    commit: str  # the default branch's commit checked
    config: str  # the project's config file, relative to the repository
    state_branch: str
    drift: DriftReport | None
    unapplied: Unapplied | None
    drift_text: str = ""  # the drift as markdown, paths relative to the repository
    # the project's drift record at the state branch's tip the check read (None: no record,
    # {}: one that cannot be read)
    record: dict[str, Any] | None = field(default=None, compare=False)

    @property
    def recorded_issue(self) -> int | None:
        """The open issue the record names (None: none, or a record that names none)."""
        number = self.record.get("issue") if self.record is not None else None
        return number if isinstance(number, int) and number > 0 else None

    @property
    def drifted(self) -> bool:
        return self.drift is not None and self.drift.has_drift

    @property
    def markers(self) -> bool:
        """Generated files hold unresolved conflict markers: the next apply is refused."""
        return self.drift is not None and bool(self.drift.markers)

    @property
    def found(self) -> bool:
        return self.drifted or self.markers or self.unapplied is not None


@dataclass(frozen=True)
class DriftOutcome:
    check: DriftCheck
    issue: IssueSync


def check_drift(ctx: FlowContext) -> DriftCheck:
    """The project's drift and unapplied changes at the checked-out commit (read only)."""
    sb = ctx.state_branch()
    tip = sb.fetch()
    base = BranchState(sb, tip, ctx.project)
    planned = plan_project(ctx.config, base, code_patch="off")
    for warning in planned.warnings:
        annotate("warning", warning)
    config = (ctx.config.config_path or ctx.repo_root / "averos.config.json").resolve()
    shown = config.relative_to(ctx.repo_root) if config.is_relative_to(ctx.repo_root) else config
    drift = planned.drift
    if drift is not None and drift.modified:  # an edit may hold a merge's unresolved markers
        found = find_markers(ctx.config.workspace_root, drift.modified)
        drift = replace(drift, markers=tuple(map(str, found)))
    # the runner's checkout folder is no part of what drifted: the body stays the same
    # from one run to the next while the drift does
    text = render_drift(drift, "markdown") if drift is not None else ""
    if drift is not None and drift.absent:
        drift = replace(drift, absent=_relative(drift.absent, ctx.repo_root))
    text = _relative(text, ctx.repo_root)
    return DriftCheck(
        project=ctx.project,
        commit=ctx.env.sha or "HEAD",
        config=shown.as_posix(),
        state_branch=ctx.settings.state_branch,
        drift=drift,
        unapplied=Unapplied.of(
            planned.plan.diff,
            applied=base.state.manifest_hash if base.state is not None else None,
            default_branch=planned.plan.manifest_hash,
        ),
        drift_text=text.rstrip(),
        record=read_record(sb.read(tip, record_path(ctx.project))),
    )


def drift_check(ctx: FlowContext) -> DriftOutcome:
    """Check the project, bring its issue and its record on the state branch up to date
    (the ``drift`` command's flow)."""
    check = check_drift(ctx)
    shared = _shared(ctx)
    issue = TrackedIssue(
        ctx.client,
        label=LABEL,
        key=f"drift:{check.project}",
        author=shared.login(ctx),
        recorded=check.recorded_issue,
        listing=shared.listing,
    )
    if check.found:
        current = issue.current()
        since = _since(str(current.get("body") or "")) if current else None
        body = render_issue(check, since=since or (_now(), check.commit, ctx.env.run_url or "-"))
        synced = issue.publish(title=issue_title(check), body=body)
    else:
        # no record: the last check found nothing, so no issue is open (a crash between
        # opening one and recording it is repaired by a check that lists)
        comment = resolved_comment(check, run_url=ctx.env.run_url)
        synced = issue.resolve(comment=comment, look=check.record is not None)
    ctx.report.set(
        drifted=check.drifted,
        unapplied=check.unapplied is not None,
        issue=synced.number if check.found and synced.number else "",  # the open one only
    )
    # after the issue: a refused push still leaves it up to date
    record_drift(ctx, check, issue=synced.number if check.found else None)
    line = _status_line(check, synced)
    print(line)
    ctx.report.add_summary(line + "\n")
    return DriftOutcome(check, synced)


def record_drift(ctx: FlowContext, check: DriftCheck, *, issue: int | None = None) -> str | None:
    """Write the check's findings and its open ``issue`` to ``.drift/<project>.json`` on the
    state branch (removed when clean) for the dashboard and the next check; the commit, or
    ``None`` when the record did not change."""
    unapplied = check.unapplied.to_record() if check.unapplied is not None else None
    found = findings(check.drift, unapplied=unapplied, issue=issue)
    if says(check.record, found):
        return None  # what the checked tip holds already: not even a fetch
    return save_record(
        ctx.state_branch(),
        check.project,
        found,
        checked_at=_now(),
        commit=check.commit,
        run_url=ctx.env.run_url,
        backoff=Backoff.from_settings(ctx.settings),
    )


def issue_title(check: DriftCheck) -> str:
    what = " and ".join(
        w
        for w, on in (
            ("drift", check.drifted),
            ("conflict markers", check.markers),
            ("unapplied changes", check.unapplied is not None),
        )
        if on
    )
    return f"averos-ci: {what} in {check.project}"


def render_issue(check: DriftCheck, *, since: tuple[str, str, str]) -> str:
    """The issue's body: stable while the findings are (``since``: when, at which commit
    and by which run — ``-``: none known — they were first found), so a run that finds the
    same thing sends nothing."""
    at, commit, run_url = since
    parts = [
        # first: a body GitHub clips (65,536 characters) still keeps it
        f"<!-- averos-ci:drift-since {at} {commit} {run_url} -->",
        f"## {code(check.project)}",
        f"Found since {at} (commit {code(commit[:12])})"
        + (f", by [this run]({run_url})" if run_url.startswith("https://") else "")
        + ". This issue is updated while it lasts and closed when it is gone.",
    ]
    if check.drifted or check.markers:
        parts += [
            "### Drift" if check.drifted else "### Conflict markers",
            _bounded(check.drift_text),
        ]
    if check.unapplied is not None:
        u = check.unapplied
        counts = ", ".join(
            f"{n} {what}"
            for n, what in (
                (u.to_add, "to add"),
                (u.to_update, "to update"),
                (u.to_remove, "to remove"),
                (u.conflicts, "in conflict"),
            )
            if n
        )
        parts += [
            "### Merged but not applied",
            f"The default branch's manifest differs from the applied one on "
            f"{code(check.state_branch)}: {counts}. Run the apply workflow by hand (*Run "
            f"workflow*, project {code(check.project)}) to catch up, or see why the last "
            "apply stopped in its run.",
        ]
    state = shlex.quote(f"origin/{check.state_branch}:{check.project}/state.json")
    config = shlex.quote(check.config)
    commands = "\n".join(
        [
            f"git fetch origin {shlex.quote(check.state_branch)}",
            f"git show {state} > /tmp/averos-state.json",
            f"averos-ci drift --config {config} --state /tmp/averos-state.json",
            f"averos-ci plan --config {config} --state /tmp/averos-state.json",
        ]
    )
    parts += [
        "### See it",
        "In a checkout of the default branch:",
        code_block(commands, "bash"),
    ]
    return "\n\n".join(parts) + "\n"


DRIFT_TEXT_LIMIT = 20_000  # characters: the issue stays far inside GitHub's 65,536


def _bounded(text: str, limit: int = DRIFT_TEXT_LIMIT) -> str:
    """``text`` cut at a line before ``limit`` characters, saying how much is left out (the
    commands under "See it" show all of it): a large drift (a deleted ``src/app``) must not
    push the issue past GitHub's limit, where its end would be clipped."""
    if len(text) <= limit:
        return text
    kept = text[:limit].rsplit("\n", 1)[0]
    left = text[len(kept) :].count("\n")
    return f"{kept}\n\n… and {left} more line(s): the commands below show all of it\n"


def resolved_comment(check: DriftCheck, *, run_url: str | None) -> str:
    where = f" ([run]({run_url}))" if run_url else ""
    return (
        f"No drift and nothing unapplied in {code(check.project)} as of commit "
        f"{code(check.commit[:12])}{where}: closing."
    )


@dataclass
class _Shared:
    """What every project one process checks shares (a batch job checks several): the
    token's login, asked once, and the label's open issues, listed at most once."""

    listing: OpenIssues = field(default_factory=lambda: OpenIssues(LABEL.name))
    _login: str | None = None
    _asked: bool = False

    def login(self, ctx: FlowContext) -> str:
        """:meth:`FlowContext.bot_login`, GET /user sent once per process."""
        if not self._asked:
            self._login, self._asked = ctx.client.authenticated_login(), True
        return self._login or ctx.settings.bot_login


_SHARED: dict[tuple[str, str], _Shared] = {}  # (API, repository): one per process and token


def _shared(ctx: FlowContext) -> _Shared:
    return _SHARED.setdefault((ctx.client.api_url, ctx.client.repository), _Shared())


def _relative(text: str, root: Path) -> str:
    """``text`` with the runner's checkout folder left out: paths relative to the repository."""
    return text.replace(f"{root}{os.sep}", "").replace(str(root), ".")


def _since(body: str) -> tuple[str, str, str] | None:
    match = _SINCE.search(body)
    return (match[1], match[2], match[3]) if match else None


def _now() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def _status_line(check: DriftCheck, synced: IssueSync) -> str:
    findings = issue_title(check).removeprefix("averos-ci: ") if check.found else "no drift"
    where = f" #{synced.number}" if synced.number else ""
    text = f"{check.project}: {findings}; issue{where} {synced.action.value}"
    if synced.duplicates:
        text += f" (closed duplicates: {', '.join(f'#{n}' for n in synced.duplicates)})"
    if synced.action is IssueAction.NONE:
        text = f"{check.project}: no drift, nothing unapplied"
    return text
