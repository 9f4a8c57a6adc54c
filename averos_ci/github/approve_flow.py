"""``/averos approve <planHash prefix>`` comments and approving reviews.

Counted only when the approver has the configured permission, is not the PR author (unless
allowed) and approves the plan currently shown for the current head, pinned by at least 12
characters of its planHash in the comment or review body (a bare ``/averos approve`` gets a
reply with the exact line to post) — or, for a plain approving review, while the plan shown is
unchanged (:func:`averos_ci.review.approvals.plain_review_refusal`; else "outdated").
The approval rules are those of the PR's base commit (:mod:`averos_ci.review.trust`).
A valid approval updates
the sticky comment, reacts to the command and sets the status to success; an invalid one gets
a short reply and changes nothing. Comment bodies are matched against the fixed command only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from averos_ci.forge.context import FlowContext
from averos_ci.forge.events import IssueCommentEvent, PullRequestReviewEvent
from averos_ci.review.approvals import (
    Refusal,
    approval_view,
    check_approver,
    comment_is_approval,
    pin_refusal,
    plain_review_refusal,
)
from averos_ci.review.comment import (
    MARKER_RE,
    PIN_CHARS,
    ApprovalRef,
    PlanMeta,
    StickyComment,
    approve_line,
    find_sticky,
    parse_command,
    restamp,
    status_text,
)
from averos_ci.review.project_status import project_context, set_project_status
from averos_ci.review.markdown import escape
from averos_ci.review.outdated import OUTDATED_STATUS, PLAN_COMMAND, is_outdated
from averos_ci.review.policy_check import Gate, gate_from_meta, status_for
from averos_ci.review.records import HeadFacts, head_facts
from averos_ci.review.trust import trust_base
from averos_ci.state.model import state_hash

NOT_COUNTED = "approval not counted"
MAX_REFUSAL_REPLIES = 10  # per pull request: repeated invalid commands are not a spam channel


def _fold_reply(comments: list[dict[str, Any]], reply: str, *, bot_login: str) -> bool:
    """Whether to skip posting ``reply``: already posted, or the budget of replies is spent."""
    mine = [
        str(c.get("body") or "")
        for c in comments
        if (c.get("user") or {}).get("login") == bot_login
        and NOT_COUNTED in str(c.get("body") or "")
    ]
    return reply in mine or len(mine) >= MAX_REFUSAL_REPLIES


@dataclass(frozen=True)
class ApproveOutcome:
    counted: bool
    reason: str | None = None  # why it was not counted (None: not an approval at all)
    approvers: tuple[str, ...] = ()
    plan_hash: str | None = None


def approve(ctx: FlowContext, event: IssueCommentEvent | PullRequestReviewEvent) -> ApproveOutcome:
    if isinstance(event, IssueCommentEvent):
        if event.action != "created" or event.issue.pull_request is None:
            print("not a new pull request comment: ignored")
            return ApproveOutcome(False)
        if not parse_command(event.comment.body)[0]:
            print("not an averos-ci command: ignored")
            return ApproveOutcome(False)
        number, login = event.issue.number, event.comment.user.login
        source = ApprovalRef("comment", event.comment.id, login, "", "")
        commit_id = event_head = None
    else:
        review = event.review
        if event.action == "dismissed" or review.state.lower() == "changes_requested":
            return refresh(ctx, event.pull_request.number)
        if event.action != "submitted" or review.state.lower() != "approved" or not review.user:
            print(f"review '{review.state}': not an approval, ignored")
            return ApproveOutcome(False)
        number, login = event.pull_request.number, review.user.login
        source = ApprovalRef("review", review.id, login, "", "")
        commit_id = review.commit_id
        event_head = event.pull_request.head.sha or None  # the head when the event fired

    client = ctx.client
    pr = client.get_pull(number)
    trust_base(ctx, str((pr.get("base") or {}).get("sha") or "") or None)
    s = ctx.settings
    if login == ctx.bot_login():
        return ApproveOutcome(False)
    head = str((pr.get("head") or {}).get("sha", ""))
    author = str((pr.get("user") or {}).get("login", ""))
    comments = list(client.issue_comments(number))
    sticky = find_sticky(comments, project=ctx.project, bot_login=ctx.bot_login())
    meta = sticky.meta if sticky else None
    facts = _facts(ctx, head, number)

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
        refusal = Refusal("the plan has no changes: nothing to approve")
    elif not meta.applicable:
        refusal = Refusal("the plan has conflicts and cannot be applied")
    elif source.kind == "comment":
        refusal = comment_is_approval(
            {
                "body": event.comment.body,
                "created_at": event.comment.created_at,
                "updated_at": event.comment.updated_at,
            }
            if isinstance(event, IssueCommentEvent)
            else {},
            plan_hash=meta.plan_hash,
            head_at=facts.head_at,
        )
    elif isinstance(event, PullRequestReviewEvent):
        refusal = _review_refusal(ctx, event, meta=meta, head=head, facts=facts)
    if refusal is None:
        refusal = check_approver(
            client,
            login=login,
            pr_number=number,
            pr_author=author,
            settings=s,
            facts=facts,
            head_sha=head,
        )
    body = event.comment.body if isinstance(event, IssueCommentEvent) else event.review.body
    if refusal is not None and _other_project(comments, body, sticky, ctx.project, ctx.bot_login()):
        # A monorepo's approve matrix runs once per project: another project's job answers.
        print(f"this approval is for another project's plan, not {ctx.project}'s: ignored")
        return ApproveOutcome(False)
    if refusal is not None:
        reply = f"{escape('@' + login)}: {NOT_COUNTED} — {escape(refusal.reason)}." + (
            f"\n\n{refusal.hint}" if refusal.hint else ""
        )
        if _fold_reply(comments, reply, bot_login=ctx.bot_login()):
            print("the same reply was already posted (or too many were): not posted again")
        else:
            client.create_comment(number, reply)
        print(f"approval by {login} not counted: {refusal.reason}")
        ctx.report.set(approved=False, plan_hash=meta.plan_hash if meta else "")
        return ApproveOutcome(False, refusal.reason, plan_hash=meta.plan_hash if meta else None)

    assert sticky is not None and meta is not None
    ref = ApprovalRef(source.kind, source.id, login, meta.plan_hash, meta.head_sha)
    meta = meta.with_approval(ref)
    approvers, g = _restamp(
        ctx, sticky, meta, number=number, author=author, head=meta.head_sha, facts=facts
    )
    if source.kind == "comment":
        client.react(source.id, "+1")
    if approvers:
        state, text = status_for(meta.plan_hash, approvers, g)
        set_project_status(
            ctx,
            meta.head_sha,
            state=state,
            description=text,
            base=str((pr.get("base") or {}).get("sha") or "") or None,
            pr_number=number,
        )
    approved = bool(approvers) and g.passed
    print(f"approval by {login} counted for plan {meta.plan_hash}")
    if g.unmet or g.violations:
        print(f"the policy is not met: {g.unmet or ', '.join(g.violations)}")
    if pr.get("merged_at") and approved:  # a recomputed plan (averos_ci.github.recovery)
        print("the pull request is merged: the apply workflow's issue_comment trigger applies it")
    ctx.report.set(approved=approved, plan_hash=meta.plan_hash, has_changes=True)
    return ApproveOutcome(approved, None, tuple(approvers), meta.plan_hash)


def _other_project(
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


def refresh(ctx: FlowContext, number: int) -> ApproveOutcome:
    """A review withdrew an approval (changes requested, dismissed): re-derive and re-show."""
    client = ctx.client
    pr = client.get_pull(number)
    trust_base(ctx, str((pr.get("base") or {}).get("sha") or "") or None)
    head = str((pr.get("head") or {}).get("sha", ""))
    author = str((pr.get("user") or {}).get("login", ""))
    sticky = find_sticky(
        client.issue_comments(number), project=ctx.project, bot_login=ctx.bot_login()
    )
    facts = _facts(ctx, head, number)
    if (
        sticky is None
        or sticky.meta is None
        or sticky.meta.head_sha != head
        or sticky.meta.plan_hash != facts.shown
    ):
        print("no current plan to refresh")
        return ApproveOutcome(False)
    meta = sticky.meta
    if meta.pending or facts.pending:  # the complete job shows the approvals
        print("the code change is still being computed: nothing to refresh")
        return ApproveOutcome(False)
    approvers, g = _restamp(ctx, sticky, meta, number=number, author=author, head=head, facts=facts)
    if meta.has_changes and meta.applicable:
        state, text = status_for(meta.plan_hash, approvers, g)
        if is_outdated(sticky.body):  # the state moved: only a re-plan makes it current
            state, text = "pending", OUTDATED_STATUS
        set_project_status(
            ctx,
            head,
            state=state,
            description=text,
            base=str((pr.get("base") or {}).get("sha") or "") or None,
            pr_number=number,
        )
    approved = not g.violations and (not meta.has_changes or (bool(approvers) and g.passed))
    ctx.report.set(approved=approved, plan_hash=meta.plan_hash)
    print(f"approvals re-derived: {', '.join(approvers) or 'none'}")
    return ApproveOutcome(approved, None, tuple(approvers), meta.plan_hash)


def _restamp(
    ctx: FlowContext,
    sticky: StickyComment,
    meta: PlanMeta,
    *,
    number: int,
    author: str,
    head: str,
    facts: HeadFacts,
) -> tuple[list[str], Gate]:
    """Re-derive who approves the plan now and the policy's verdict, and show both in the
    sticky comment."""
    client = ctx.client
    view = approval_view(
        client,
        pr_number=number,
        pr_author=author,
        plan_hash=meta.plan_hash,
        head_sha=head,
        settings=ctx.settings,
        project=ctx.project,
        bot_login=ctx.bot_login(),
        facts=facts,
    )
    approvers = list(view.approvers)
    g = gate_from_meta(client, approvers, meta)
    client.update_comment(
        sticky.id,
        restamp(
            sticky.body,
            meta,
            status_text(meta, approvers, outdated=view.outdated, unmet=g.unmet),
        ),
    )
    return approvers, g


def _facts(ctx: FlowContext, head: str, number: int) -> HeadFacts:
    """The bot's records of ``head`` on pull request ``number`` (never the comment's text)."""
    return head_facts(
        ctx.client,
        head,
        context=project_context(ctx.settings.status_context, ctx.project),
        pr_number=number,
        bot_login=ctx.bot_login(),
    )


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
        now = state_hash(ctx.load_state(sb, sb.fetch()))
        if now != meta.base_state:
            return Refusal(
                "outdated: the state changed since the plan was computed (another apply "
                "landed); the plan is recomputed on the next push",
                hint,
            )
    return None
