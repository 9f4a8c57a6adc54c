"""After an apply moves a project's state, the plans other open pull requests show for that
project were computed against the old state: mark them outdated.

The mark is a note right after the sticky comment's status block (outside it, so that
approvals and refreshes, which rewrite the block, keep it), the project status goes back to
pending ("state moved; re-plan") and so does the aggregate. An outdated plan cannot be
approved; a new push or a ``/averos plan`` comment re-plans it (a new body without the mark).
Best effort: a failure here is a warning, never a failed apply.
"""

from __future__ import annotations

from averos_ci._actions import annotate
from averos_ci._markdown import code
from averos_ci.forge.context import FlowContext
from averos_ci.review.comment import STATUS_CLOSE, find_sticky
from averos_ci.review.project_status import project_context, refresh_aggregate

OUTDATED_MARK = "<!-- averos-ci:outdated -->"
OUTDATED_STATUS = "state moved; re-plan"
PLAN_COMMAND = "/averos plan"
MAX_PULLS = 300  # open pull requests looked at; a busier repository re-plans on push


def is_outdated(body: str) -> bool:
    return OUTDATED_MARK in body


def is_plan_command(body: str | None) -> bool:
    """``/averos plan`` on a line of its own (the body is matched, never interpreted)."""
    return any(line.split() == PLAN_COMMAND.split() for line in (body or "").splitlines()[:20])


def outdated_note(project: str, plan_hash: str, merged: int | None) -> str:
    by = f" by the merge of #{merged}" if merged is not None else ""
    return (
        f"{OUTDATED_MARK}\n> ⚠️ **Outdated** — the state of {code(project)} moved{by} (applied "
        f"plan {code(plan_hash[:12])}) after this plan was computed. Push, or comment "
        f"`{PLAN_COMMAND}`, to re-plan; this plan can no longer be approved."
    )


def mark_outdated(ctx: FlowContext, *, plan_hash: str, merged: int | None) -> list[int]:
    """Mark the current plans of ``ctx.project`` on every other open pull request outdated;
    returns their numbers. Never raises."""
    try:
        return _mark(ctx, plan_hash=plan_hash, merged=merged)
    except Exception as exc:  # the apply succeeded; this is a courtesy to other PRs
        annotate("warning", f"could not mark other pull requests' plans outdated: {exc}")
        return []


def _mark(ctx: FlowContext, *, plan_hash: str, merged: int | None) -> list[int]:
    client, marked = ctx.client, []
    pulls = client.open_pull_requests()
    for i, pr in enumerate(pulls):
        if i >= MAX_PULLS:
            break
        number = int(pr.get("number") or 0)
        head = str((pr.get("head") or {}).get("sha") or "")
        if not number or number == merged or not head:
            continue
        sticky = find_sticky(
            client.issue_comments(number), project=ctx.project, bot_login=ctx.bot_login()
        )
        if sticky is None or sticky.meta is None or sticky.meta.head_sha != head:
            continue  # no plan for this project, or one for an older head (re-planned on push)
        if not is_outdated(sticky.body):
            note = outdated_note(ctx.project, plan_hash, merged)
            top, sep, rest = sticky.body.partition(STATUS_CLOSE)
            body = f"{top}{sep}\n\n{note}{rest}" if sep else f"{sticky.body}\n\n{note}"
            client.update_comment(sticky.id, body)
        client.set_status(
            head,
            state="pending",
            description=OUTDATED_STATUS,
            context=project_context(ctx.settings.status_context, ctx.project),
            target_url=ctx.env.run_url,
        )
        # One project is pending now: the aggregate follows from the statuses alone.
        refresh_aggregate(ctx, head, base=None, statuses_only=True)
        marked.append(number)
        print(f"#{number}: the plan of {ctx.project} is outdated (state moved)")
    return marked
