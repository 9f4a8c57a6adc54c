"""Whether an approval event counts for this project's plan: the plan shown must be the one
published for the current head (the bot's records), current, complete, with changes and
applicable; a comment must pin it and be written after it was published; a review must pin it,
or be a plain approving review while plain reviews count and nothing moved since. Who approves
is checked after (:mod:`averos_ci.review.approver`). The flow is
:mod:`averos_ci.github.approve_flow`."""

from __future__ import annotations

from typing import Any

from averos_ci.forge.context import FlowContext
from averos_ci.forge.events import IssueCommentEvent, PullRequestReviewEvent
from averos_ci.review.approver import Refusal
from averos_ci.review.comment import (
    MARKER_RE,
    PIN_CHARS,
    PlanMeta,
    StickyComment,
    approve_line,
    parse_command,
)
from averos_ci.review.outdated import PLAN_COMMAND, is_outdated
from averos_ci.review.pins import comment_is_approval, pin_refusal, plain_review_refusal
from averos_ci.review.records import HeadFacts
from averos_ci.state.model import state_hash
from averos_ci.statebranch.project_state import BranchState

# The refusal of an approval of a plan without changes: nothing needed one (the plan job
# already reports such a plan approved, and so does the approve job that refuses it).
NOTHING_TO_APPROVE = "the plan has no changes: nothing to approve"


def event_refusal(
    ctx: FlowContext,
    event: IssueCommentEvent | PullRequestReviewEvent,
    *,
    sticky: StickyComment | None,
    head: str,
    facts: HeadFacts,
    commit_id: str | None,
    event_head: str | None,
) -> Refusal | None:
    """Why ``event`` does not approve the plan in ``sticky`` for ``head`` (``None``: it does,
    if the approver may approve). ``commit_id``: a review's commit; ``event_head``: the head
    when a review's event fired."""
    meta = sticky.meta if sticky else None
    refusal: Refusal | None = None
    if sticky is None or meta is None:
        refusal = Refusal("there is no averos-ci plan on this pull request yet")
    elif meta.head_sha != head:
        refusal = Refusal(
            f"the plan is for {meta.head_sha[:12]} but the head is {head[:12]}; "
            "wait for the new plan and approve that"
        )
    elif facts.shown != meta.plan_hash:
        refusal = Refusal(
            "the plan comment does not match the plan averos-ci published for this head "
            "(its records on the commit): it was edited, or its plan job did not finish",
            f"Comment `{PLAN_COMMAND}` (or push) to re-plan, then approve the new plan.",
        )
    elif event_head is not None and event_head != head:
        refusal = Refusal(
            f"this event is for head {event_head[:12]}, but the head is now {head[:12]}; "
            "approve the current plan"
        )
    elif commit_id is not None and commit_id != meta.head_sha:
        refusal = Refusal(
            f"this review is for commit {commit_id[:12]}, the plan for {meta.head_sha[:12]}"
        )
    elif is_outdated(sticky.body):
        refusal = Refusal(
            "the plan is outdated: the project's state moved since it was computed",
            f"Comment `{PLAN_COMMAND}` (or push) to re-plan, then approve the new plan.",
        )
    elif meta.pending or facts.pending:
        refusal = Refusal(
            "the code change is still being computed; an approval covers it, so approve "
            "once the plan comment shows it (with the new planHash to pin)"
        )
    elif not meta.has_changes:
        refusal = Refusal(NOTHING_TO_APPROVE)
    elif not meta.applicable:
        refusal = Refusal("the plan has conflicts and cannot be applied")
    elif isinstance(event, IssueCommentEvent):
        refusal = comment_is_approval(
            {
                "body": event.comment.body,
                "created_at": event.comment.created_at,
                "updated_at": event.comment.updated_at,
            },
            plan_hash=meta.plan_hash,
            head_at=facts.head_at,
        )
    else:
        refusal = _review_refusal(ctx, event, meta=meta, head=head, facts=facts)
    return refusal


def other_project(
    comments: list[dict[str, Any]],
    body: str | None,
    sticky: StickyComment | None,
    project: str,
    bot_login: str,
) -> bool:
    """Whether the command is another project's business: this project has no plan on the PR
    while others do, or its pin matches another project's plan (and not this one's)."""
    others = [
        m
        for c in comments
        if (c.get("user") or {}).get("login") == bot_login
        and (match := MARKER_RE.match(str(c.get("body") or "")))
        and match.group(1) != project
        and (m := PlanMeta.decode(str(c.get("body") or ""))) is not None
    ]
    if sticky is None:
        return bool(others)
    prefix = parse_command(body)[1]
    if not prefix or len(prefix) < PIN_CHARS or prefix == "!invalid":
        return False
    mine = sticky.meta is not None and sticky.meta.plan_hash.startswith(prefix)
    return not mine and any(m.plan_hash.startswith(prefix) for m in others)


def _review_refusal(
    ctx: FlowContext,
    event: PullRequestReviewEvent,
    *,
    meta: PlanMeta,
    head: str,
    facts: HeadFacts,
) -> Refusal | None:
    """Why an approving review does not count: a pinned one by its pin, a plain one when
    plain reviews are off or it is outdated (the plan or the state changed since)."""
    review = event.review
    if parse_command(review.body)[0]:
        return pin_refusal(review.body, plan_hash=meta.plan_hash)
    hint = f"To approve the current plan, post exactly:\n\n{approve_line(meta.plan_hash)}"
    if not ctx.settings.plain_review_approvals:
        return Refusal(
            "an approving review counts only if its body pins the plan (plain approving "
            "reviews are off: github.plainReviewApprovals)",
            hint,
        )
    refusal = plain_review_refusal(
        {"commit_id": review.commit_id, "submitted_at": review.submitted_at},
        facts=facts,
        plan_hash=meta.plan_hash,
        head_sha=head,
    )
    if refusal is not None:
        return Refusal(f"outdated: {refusal.reason}", refusal.hint)
    if meta.base_state is not None:
        sb = ctx.state_branch()
        now = state_hash(BranchState(sb, sb.fetch(), ctx.project).load())
        if now != meta.base_state:
            return Refusal(
                "outdated: the state changed since the plan was computed (another apply "
                "landed); the plan is recomputed on the next push",
                hint,
            )
    return None
