"""One summary comment for a pull request that touches several projects: a table of every
project — its status, its change counts, its planHash and a link to its own plan comment — so
that a review of 200 projects starts from one readable page, the per-project comments holding
the detail.

The ``gate`` step after the plan matrix writes it (:mod:`averos_ci.github.aggregate_gate_flow`):
one request that creates or updates it, none when nothing changed. It is display only: it is
read from the bot's per-project comments and statuses, and no approval ever depends on it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from averos_ci._markdown import code, escape
from averos_ci.forge.context import FlowContext
from averos_ci.review.comment import MARKER_RE, PlanMeta

SUMMARY_MARKER = "<!-- averos-ci:summary -->"
_ICONS = {"success": "✅", "pending": "⏳", "failure": "⛔", "error": "⛔"}


@dataclass(frozen=True)
class Row:
    project: str
    state: str  # the project's status: success | pending | failure | error | missing
    description: str
    meta: PlanMeta | None = None
    link: str | None = None  # the project's plan comment


def _counts(meta: PlanMeta | None) -> str:
    if meta is None or meta.counts is None:
        return "—"
    c = meta.counts
    text = f"+{c.get('create', 0)} ~{c.get('update', 0)} -{c.get('remove', 0)}"
    text += "".join(
        f" {mark}{c[key]}" for key, mark in (("replace", "-/+"), ("rename", ">")) if c.get(key)
    )
    return text + (f", {c['conflicts']} conflict(s)" if c.get("conflicts") else "")


def render_summary(rows: Sequence[Row], *, max_chars: int) -> str:
    """The summary's markdown: a count per state, then one table row per project, cut (and
    said so) where the comment's budget ends."""
    by_state: dict[str, int] = {}
    for r in rows:
        by_state[r.state] = by_state.get(r.state, 0) + 1
    tally = ", ".join(f"{_ICONS.get(s, '❔')} {n} {s}" for s, n in sorted(by_state.items()))
    head = (
        f"{SUMMARY_MARKER}\n### averos-ci: {len(rows)} projects in this pull request\n\n"
        f"{tally}. Each project has its own plan comment (linked) to read and approve "
        "(`/averos approve <planHash prefix>` there); this table is a summary.\n\n"
        "| project | status | changes | plan | |\n|---|---|---|---|---|\n"
    )
    lines: list[str] = []
    used = len(head)
    for i, r in enumerate(rows):
        plan = code(r.meta.plan_hash[:12]) if r.meta else "—"
        link = f"[plan comment]({r.link})" if r.link else "no plan comment yet"
        line = (
            f"| {code(r.project)} | {_ICONS.get(r.state, '❔')} {escape(r.description)} "
            f"| {_counts(r.meta)} | {plan} | {link} |\n"
        )
        rest = f"\n… and {len(rows) - i} more project(s): see their commit statuses.\n"
        if used + len(line) + len(rest) > max_chars:
            lines.append(rest)
            break
        lines.append(line)
        used += len(line)
    return head + "".join(lines)


def summary_rows(
    comments: Sequence[Mapping[str, object]],
    statuses: Mapping[str, tuple[str, str]],
    expected: Sequence[str],
    *,
    bot_login: str,
) -> list[Row]:
    """One row per project that has a status or is touched, from the bot's own comments."""
    plans: dict[str, tuple[PlanMeta, str | None]] = {}
    for c in comments:
        user = c.get("user")
        if not isinstance(user, Mapping) or user.get("login") != bot_login:
            continue
        body = str(c.get("body") or "")
        match = MARKER_RE.match(body)
        meta = PlanMeta.decode(body) if match else None
        if match and meta is not None and match.group(1) not in plans:
            url = c.get("html_url")
            plans[match.group(1)] = (meta, str(url) if url else None)
    rows = []
    for project in sorted(set(expected) | set(statuses)):
        state, text = statuses.get(project, ("missing", "waiting for the plan"))
        meta, link = plans.get(project, (None, None))
        rows.append(Row(project, state, text, meta, link))
    return rows


def publish_summary(
    ctx: FlowContext,
    number: int,
    statuses: Mapping[str, tuple[str, str]],
    expected: Sequence[str],
) -> bool:
    """Create or update the summary comment of pull request ``number`` when it touches more
    than one project; ``True`` when a request was sent (none when the text is unchanged)."""
    if len(set(expected) | set(statuses)) < 2:
        return False
    comments = list(ctx.client.issue_comments(number))
    bot = ctx.bot_login()
    rows = summary_rows(comments, statuses, expected, bot_login=bot)
    body = render_summary(rows, max_chars=ctx.settings.max_comment_chars)
    mine = [
        c
        for c in comments
        if (c.get("user") or {}).get("login") == bot
        and str(c.get("body") or "").startswith(SUMMARY_MARKER)
    ]
    if mine and mine[0].get("body") == body:
        return False
    if mine:
        ctx.client.update_comment(int(mine[0]["id"]), body)
    else:
        ctx.client.create_comment(number, body)
    print(f"summary of {len(rows)} projects on #{number}")
    return True
