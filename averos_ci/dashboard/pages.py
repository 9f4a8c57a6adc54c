"""The site's pages: the overview (``index.html``: projects, claims, drift, failures) and one
history page per project (``projects/<slug>.html``: the plans applied, the claim, the drift
record and the state branch's commits for that folder)."""

from __future__ import annotations

import hashlib
import re

from averos_ci.dashboard.model import ClaimStatus, Dashboard, ProjectView, parse_time
from averos_ci.dashboard.page import (
    badge,
    duration,
    frame,
    link,
    outside_link,
    pull,
    short,
    table,
    text,
    when,
)

TITLE = "averos-ci dashboard"
MAX_DRIFT_FILES = 50  # per project page; the count says how many there are


def project_file(name: str) -> str:
    """The page of project ``name``: a readable, safe file name, unique by a hash suffix
    (project names may hold ``/`` and characters a file name cannot)."""
    safe = re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip(".-")[:60] or "project"
    digest = hashlib.sha256(name.encode("utf-8")).hexdigest()[:8]
    return f"projects/{safe}-{digest}.html"


def statuses(p: ProjectView) -> str:
    found = []
    if p.error:
        found.append(badge("bad", "unreadable"))
    if p.claim is not None:
        kind = {ClaimStatus.RUNNING: "info", ClaimStatus.STUCK: "bad", ClaimStatus.FAILED: "bad"}
        found.append(badge(kind[p.claim.status], f"apply {p.claim.status}"))
    found += [badge("warn", what) for what in drift_findings(p)]
    if p.runs and p.runs[-1].failed:
        last = p.runs[-1]
        found.append(badge("bad", "apply abandoned" if last.action == "abandon" else "failed"))
    if p.serial is None and not p.error:
        found.append(badge("info", "not applied"))
    return " ".join(found) or badge("ok", "in sync")


def drift_findings(p: ProjectView) -> list[str]:
    """What the project's drift record says, in words (nothing: no record, or clean)."""
    r = p.drift
    if r is None:
        return []
    found = [("drifted", r.drifted), ("conflict markers", bool(r.markers))]
    found.append(("unapplied changes", r.unapplied is not None))
    return [what for what, on in found if on]


def index_page(d: Dashboard) -> str:
    stuck_minutes = int(d.stuck_after.total_seconds() // 60)
    body = [
        f"<h1>{text(TITLE)}</h1>\n",
        f"<p>State branch <code>{text(d.branch)}</code> at {short(d.tip)}; built "
        f"{when(d.generated_at)}. {len(d.projects)} project(s). A claim is stuck after "
        f"{stuck_minutes} minute(s) without progress.</p>\n",
        '<h2 id="projects">Projects</h2>\n',
        table(
            "Every project on the state branch, with its last apply",
            [
                "Project",
                "Status",
                "Manifest",
                "Commit",
                "State serial",
                "Approver",
                "Last apply",
                "Duration",
            ],
            (_project_row(p) for p in d.projects),
            empty="No project has been applied yet.",
        ),
        '<h2 id="claims">Running and stuck applies</h2>\n',
        table(
            "Claims: applies that hold a project",
            ["Project", "Status", "Plan", "Commit", "Pull request", "Last progress", "Run"],
            (
                [
                    link(project_file(p.name), p.name),
                    badge("info" if c.status is ClaimStatus.RUNNING else "bad", c.status),
                    short(c.plan_hash),
                    short(c.sha),
                    pull(c.pr),
                    when(c.last_progress),
                    outside_link(c.run_url, "run"),
                ]
                for p in d.projects
                if (c := p.claim) is not None
            ),
            empty="No apply is running, stuck or failed.",
        ),
        '<h2 id="drift">Drift</h2>\n',
        table(
            "Projects whose application differs from its state, or whose merged changes wait",
            ["Project", "Found", "Since", "Files", "Run"],
            (
                [
                    link(project_file(p.name), p.name),
                    text(", ".join(drift_findings(p))),
                    when(parse_time(p.drift.since or p.drift.checked_at)),
                    text(len(p.drift.files)) + (" (application absent)" if p.drift.absent else ""),
                    outside_link(p.drift.run_url, "run"),
                ]
                for p in d.projects
                if p.drift is not None and p.drift.found
            ),
            empty="No project is drifted (as far as the drift checks recorded).",
        ),
        '<h2 id="failures">Failures</h2>\n',
        table(
            "Failed and abandoned applies",
            ["Project", "What", "Plan", "Commit", "When", "Run"],
            _failure_rows(d),
            empty="No failed apply is recorded.",
        ),
    ]
    return frame(title=TITLE, body="".join(body))


def _project_row(p: ProjectView) -> list[str]:
    last = p.last_apply
    return [
        link(project_file(p.name), p.name),
        statuses(p),
        short(p.manifest_hash),
        short(last.sha if last else None),
        text(p.serial) if p.serial is not None else "—",
        text(last.approver) if last and last.approver else "not recorded",
        when(last.finished_at) if last else "never",
        duration(last.duration_ms) if last else "—",
    ]


def _failure_rows(d: Dashboard) -> list[list[str]]:
    rows = []
    for p in d.projects:
        if p.claim is not None and p.claim.status is ClaimStatus.FAILED:
            c = p.claim
            what = f"apply failed ({c.checkpoints.get('FAILED', 0)} node(s)); progress kept"
            rows.append(
                [
                    link(project_file(p.name), p.name),
                    text(what),
                    short(c.plan_hash),
                    short(c.sha),
                    when(c.last_progress),
                    outside_link(c.run_url, "run"),
                ]
            )
        for r in p.failures:
            what = f"abandoned by {r.actor}: {r.reason}" if r.action == "abandon" else "failed"
            rows.append(
                [
                    link(project_file(p.name), p.name),
                    text(what),
                    short(r.plan_hash),
                    short(r.sha),
                    when(r.finished_at),
                    outside_link(r.run_url, "run"),
                ]
            )
        if p.error:
            rows.append([link(project_file(p.name), p.name), text(p.error), "—", "—", "—", "—"])
    return rows
