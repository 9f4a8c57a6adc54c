"""One project's history page: its applied state, the plans applied (run records, newest
first), the claim of an apply in progress, its drift record and the state branch's commits
that touched its folder."""

from __future__ import annotations

from averos_ci.dashboard.model import Dashboard, ProjectView
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
from averos_ci.dashboard.pages import MAX_DRIFT_FILES, TITLE, drift_findings, statuses


def project_page(d: Dashboard, p: ProjectView) -> str:
    body = [
        f"<p>{link('../index.html', 'All projects')}</p>\n",
        f"<h1>Project <code>{text(p.name)}</code></h1>\n",
        f"<p>Status: {statuses(p)}</p>\n",
    ]
    if p.error:
        body.append(f'<p class="error">{text(p.error)}</p>\n')
    body += ['<h2 id="state">Applied state</h2>\n', _state(p)]
    body += [
        '<h2 id="applied">Plans applied</h2>\n',
        table(
            f"Run records of {p.name}, newest first",
            ["Finished", "Action", "Plan", "Commit", "Pull request", "Approver", "Duration", "Run"],
            (
                [
                    when(r.finished_at) if r.finished_at else text(r.run_id),
                    badge("bad" if r.failed else "ok", r.action)
                    + (f" {text(r.actor)}: {text(r.reason)}" if r.actor else ""),
                    short(r.plan_hash),
                    short(r.sha),
                    pull(r.pr),
                    text(r.approver) if r.approver else "not recorded",
                    duration(r.duration_ms),
                    outside_link(r.run_url, "run"),
                ]
                for r in reversed(p.runs)
            ),
            empty="No run is recorded for this project.",
        ),
    ]
    body += ['<h2 id="claim">Apply in progress</h2>\n', _claim(p)]
    body += ['<h2 id="drift">Drift</h2>\n', _drift(p)]
    body += [
        '<h2 id="history">State branch history</h2>\n',
        table(
            f"Commits of {d.branch} that changed {p.name}, newest first",
            ["Commit", "When", "Message"],
            ([short(c.sha), when(c.at), text(c.message)] for c in p.commits),
            empty="No commit touched this folder.",
        ),
    ]
    return frame(title=f"{p.name} — {TITLE}", body="".join(body), root="../")


def _state(p: ProjectView) -> str:
    if p.serial is None:
        return '<p class="empty">Nothing is applied yet.</p>\n'
    last = p.last_apply
    rows = [
        ("Manifest hash", f"<code>{text(p.manifest_hash)}</code>"),
        ("State serial", text(p.serial)),
        ("Built", text(p.built_at)),
        ("Applied commit", short(last.sha if last else None, 40)),
        ("Approver", text(last.approver) if last and last.approver else "not recorded"),
        ("Last apply", when(last.finished_at) if last else "never"),
        ("Duration", duration(last.duration_ms) if last else "—"),
    ]
    return "<dl>\n" + "".join(f"<dt>{k}</dt><dd>{v}</dd>\n" for k, v in rows) + "</dl>\n"


def _claim(p: ProjectView) -> str:
    c = p.claim
    if c is None:
        return '<p class="empty">No apply holds this project.</p>\n'
    done = ", ".join(f"{n} {text(s)}" for s, n in sorted(c.checkpoints.items())) or "none"
    rows = [
        ("Status", badge("info" if c.status == "running" else "bad", c.status)),
        ("Plan", short(c.plan_hash, 64)),
        ("Commit", short(c.sha, 40)),
        ("Pull request", pull(c.pr)),
        ("Last progress", when(c.last_progress)),
        ("Checkpoints", done),
        ("Partial workspace", f"{c.partial_files} file(s)"),
        ("Run", outside_link(c.run_url, "the apply's run")),
    ]
    hint = (
        "<p>Re-run the apply job to resume it, or drop it with "
        f"<code>averos-ci state abandon --project {text(p.name)} --reason '…'</code>.</p>\n"
    )
    dl = "<dl>\n" + "".join(f"<dt>{k}</dt><dd>{v}</dd>\n" for k, v in rows) + "</dl>\n"
    return dl + hint


def _drift(p: ProjectView) -> str:
    r = p.drift
    if r is None:
        return '<p class="empty">The drift checks found nothing in this project.</p>\n'
    found = drift_findings(p)
    head = (
        f"<p>Found since {text(r.since or r.checked_at)}"
        + (f" at commit {short(r.commit)}" if r.commit else "")
        + ": "
        + (" ".join(badge("warn", w) for w in found) or badge("ok", "no drift"))
        + (f" — {text(r.absent)}" if r.absent else "")
        + f" ({outside_link(r.run_url, 'the check')})</p>\n"
    )
    if r.markers:
        head += (
            "<p>Conflict markers in: "
            + ", ".join(f"<code>{text(m)}</code>" for m in r.markers[:MAX_DRIFT_FILES])
            + "</p>\n"
        )
    if r.unapplied is not None:
        u = r.unapplied
        head += (
            f"<p>Merged but not applied: {text(u.changes)} change(s); applied manifest "
            f"{short(u.applied)}, default branch's {short(u.default_branch)}.</p>\n"
        )
    shown = r.files[:MAX_DRIFT_FILES]
    more = len(r.files) - len(shown)
    return (
        head
        + table(
            f"Files that differ from what {p.name}'s state recorded ({len(r.files)})",
            ["File", "Change"],
            ([f"<code>{text(f.path)}</code>", text(f.change)] for f in shown),
            empty="No file differs.",
        )
        + (f"<p>{more} more file(s) not shown.</p>\n" if more > 0 else "")
    )
