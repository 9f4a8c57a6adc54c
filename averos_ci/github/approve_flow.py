"""``/averos approve <planHash prefix>`` comments and approving reviews.

Counted only when the approver has the configured permission, is not the PR author (unless
allowed) and approves the plan currently shown for the current head, pinned by at least 12
characters of its planHash in the comment or review body (a bare ``/averos approve`` gets a
reply with the exact line to post) — or, for a plain approving review, while the plan shown is
unchanged (:func:`averos_ci.review.pins.plain_review_refusal`; else "outdated"); the rules are
:mod:`averos_ci.review.approval_check`.
The approval rules are those of the PR's base commit (:mod:`averos_ci.review.trust`).
A valid approval updates
the sticky comment, reacts to the command and sets the status to success; an invalid one gets
a short reply and changes nothing. Comment bodies are matched against the fixed command only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from averos_ci._markdown import escape
from averos_ci.forge.context import FlowContext
from averos_ci.forge.events import IssueCommentEvent, PullRequestReviewEvent
from averos_ci.review.approval_check import NOTHING_TO_APPROVE, event_refusal, other_project
from averos_ci.review.approvals import approval_view
from averos_ci.review.approver import check_approver
from averos_ci.review.comment import (
    ApprovalRef,
    PlanMeta,
    StickyComment,
    find_sticky,
    parse_command,
    restamp,
    status_text,
)
from averos_ci.review.outdated import OUTDATED_STATUS, is_outdated
from averos_ci.review.owners import Owners, project_owners
from averos_ci.review.policy_check import PolicyVerdict, status_for, verdict_from_meta
from averos_ci.review.project_status import project_context, set_project_status
from averos_ci.review.records import HeadFacts, head_facts
from averos_ci.review.trust import trust_base

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
    owners = project_owners(ctx, str((pr.get("base") or {}).get("sha") or "") or None)

    refusal = event_refusal(
        ctx,
        event,
        sticky=sticky,
        head=head,
        facts=facts,
        commit_id=commit_id,
        event_head=event_head,
    )
    if refusal is None:
        refusal = check_approver(
            client,
            login=login,
            pr_number=number,
            pr_author=author,
            settings=s,
            facts=facts,
            head_sha=head,
            owners=owners,
        )
    body = event.comment.body if isinstance(event, IssueCommentEvent) else event.review.body
    if refusal is not None and other_project(comments, body, sticky, ctx.project, ctx.bot_login()):
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
        if refusal.reason == NOTHING_TO_APPROVE:  # as the plan job reports the same plan
            ctx.report.set(approved=True, plan_hash=meta.plan_hash if meta else "",
                           has_changes=False)  # fmt: skip
        else:
            ctx.report.set(approved=False, plan_hash=meta.plan_hash if meta else "")
        return ApproveOutcome(False, refusal.reason, plan_hash=meta.plan_hash if meta else None)

    assert sticky is not None and meta is not None
    ref = ApprovalRef(source.kind, source.id, login, meta.plan_hash, meta.head_sha)
    meta = meta.with_approval(ref)
    approvers, g = _restamp(
        ctx,
        sticky,
        meta,
        number=number,
        author=author,
        head=meta.head_sha,
        facts=facts,
        owners=owners,
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
    if pr.get("merged_at") and approved:  # a recomputed plan (averos_ci.github.apply_flow)
        print("the pull request is merged: the apply workflow's issue_comment trigger applies it")
    ctx.report.set(approved=approved, plan_hash=meta.plan_hash, has_changes=True)
    return ApproveOutcome(approved, None, tuple(approvers), meta.plan_hash)


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
    owners = project_owners(ctx, str((pr.get("base") or {}).get("sha") or "") or None)
    approvers, g = _restamp(
        ctx, sticky, meta, number=number, author=author, head=head, facts=facts, owners=owners
    )
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
    owners: Owners | None,
) -> tuple[list[str], PolicyVerdict]:
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
        owners=owners,
    )
    approvers = list(view.approvers)
    g = verdict_from_meta(client, approvers, meta)
    client.update_comment(
        sticky.id,
        restamp(
            sticky.body,
            meta,
            status_text(
                meta,
                approvers,
                outdated=view.outdated,
                unmet=g.unmet,
                awaited=owners.awaited() if owners else None,
            ),
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
