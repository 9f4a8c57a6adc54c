"""The plan on a pull request: its sticky comment (one per project) and its commit status,
with who approves it now; the budgets of the comment and of the job summary, and the parts
of the comment a flow computes (the policy section, where the left-out diffs are).
:mod:`averos_ci.github.plan_flow` plans; the catch-up's recomputed plan
(:mod:`averos_ci.github.recomputed`) reuses the sections."""

from __future__ import annotations

from dataclasses import dataclass, replace

from averos_ci._markdown import code
from averos_ci.forge.context import FlowContext
from averos_ci.forge.events import PullRequest
from averos_ci.github.patch_result import DEFAULT_FILE_NAME
from averos_ci.plan import ExecutionPlan
from averos_ci.policy import PolicyResult, PolicySettings, evaluate_policy, render_policy_markdown
from averos_ci.review.approvals import ApprovalView, approval_view
from averos_ci.review.comment import find_sticky, restamp, status_text
from averos_ci.review.owners import project_owners
from averos_ci.review.plan_status import set_plan_status
from averos_ci.review.policy_check import verdict_from_meta
from averos_ci.review.project_status import is_large
from averos_ci.review.records import record_url
from averos_ci.review.sections import CommentParts, render_comment

SUMMARY_MAX_CHARS = 900_000  # the job summary takes up to 1 MiB


@dataclass(frozen=True)
class PlanOutcome:
    plan: ExecutionPlan | None
    head_sha: str | None
    comment_id: int | None
    approved: bool
    posted: bool  # False: fork / read-only token / skipped action


def publish_plan(
    ctx: FlowContext,
    pr: PullRequest,
    parts: CommentParts,
    *,
    blocked: bool = False,
    pusher: str | None = None,
) -> PlanOutcome:
    """Write ``parts`` as the pull request's sticky plan comment (per project), keeping the
    approval pointers of a re-run of the same head and plan, then stamp when it was first
    published and set the ``averos-ci/plan`` status with who approves now."""
    plan, meta, note = parts.plan, parts.meta, parts.note
    s, client = ctx.settings, ctx.client
    sticky = find_sticky(
        client.issue_comments(pr.number), project=ctx.project, bot_login=ctx.bot_login()
    )
    approvers: list[str] = []
    view = ApprovalView()
    owners = project_owners(ctx, pr.base.sha)
    if sticky is not None and sticky.meta is not None:
        # Same head and plan (a re-run): keep the approval pointers; anything else is void.
        kept = tuple(
            a
            for a in sticky.meta.approvals
            if a.plan_hash == meta.plan_hash and a.head_sha == meta.head_sha
        )
        same_head = sticky.meta.head_sha == meta.head_sha
        same_plan = same_head and sticky.meta.plan_hash == meta.plan_hash
        meta = replace(
            meta,
            approvals=kept,
            head_at=sticky.meta.head_at if same_head else None,
            plan_at=sticky.meta.plan_at if same_plan else None,
        )
        if same_head and not meta.pending:  # plain reviews are read from GitHub, pointers or not
            view = approval_view(
                client,
                pr_number=pr.number,
                pr_author=pr.user.login,
                plan_hash=meta.plan_hash,
                head_sha=meta.head_sha,
                settings=s,
                project=ctx.project,
                bot_login=ctx.bot_login(),
                owners=owners,
            )
    g = verdict_from_meta(client, view.approvers, meta)
    approvers = list(view.approvers)
    awaited = owners.awaited() if owners else None
    parts = replace(
        parts,
        meta=meta,
        approvers=tuple(approvers),
        outdated=tuple(view.outdated),
        unmet=g.unmet,
        awaited=awaited,
    )
    body = render_comment(parts, max_chars=s.max_comment_chars)
    if sticky is None:
        written = client.create_comment(pr.number, body)
    else:
        written = client.update_comment(sticky.id, body)
    comment_id = int(written["id"])
    # A large pull request spares the stamp (one request per project): headAt and planAt in
    # the comment are a display cache, approvals read the bot's records (the statuses).
    large = is_large(ctx, base=pr.base.sha, head=pr.head.sha, pr_number=pr.number)
    if (meta.head_at is None or meta.plan_at is None) and not large:
        # First plan for this head (or this plan): record when it was published, on GitHub's
        # clock (the comment's own time). Only comments written after ``headAt`` approve this
        # head; only plain reviews submitted after ``planAt`` approve this plan.
        when = str(written.get("updated_at") or written.get("created_at"))
        meta = replace(meta, head_at=meta.head_at or when, plan_at=meta.plan_at or when)
        client.update_comment(
            comment_id,
            restamp(
                body,
                meta,
                status_text(
                    meta, approvers, note, outdated=view.outdated, unmet=g.unmet, awaited=awaited
                ),
            ),
        )
    approved = not g.violations and (
        not meta.has_changes or (bool(approvers) and g.passed and not meta.pending)
    )
    set_plan_status(
        ctx,
        meta.head_sha,
        plan=plan,
        approvers=approvers,
        needs=meta.has_changes,
        blocked=blocked,
        gate=g,
        base=pr.base.sha,
        pr_number=pr.number,
        record=record_url(
            ctx.env.run_url,
            plan_hash=plan.plan_hash,
            pr_number=pr.number,
            pusher=pusher,
            semantic=meta.semantic_hash,
            pending=meta.pending,
        ),
        pending=meta.pending,
    )
    ctx.report.set(approved=approved)
    return PlanOutcome(plan, meta.head_sha, comment_id, approved, True)


def policy_section(ctx: FlowContext, plan: ExecutionPlan) -> tuple[PolicyResult, str | None]:
    """The base branch's policy verdict on ``plan`` and its section (none without a policy)."""
    verdict = evaluate_policy(plan, ctx.policy)
    return verdict, render_policy_markdown(verdict) if ctx.policy != PolicySettings() else None


def left_out_where(run_url: str | None) -> str:
    """Where the diffs a comment leaves out are: the complete job's summary (the same
    sections under a 1 MiB budget) and the patch job's uploaded result, whose code change holds
    every file's diff (``averos-ci plan --diff`` prints it as one unified diff)."""
    artifact = f"the patch job's uploaded artifact ({code(DEFAULT_FILE_NAME)}, its `codePatch`)"
    if run_url is None:
        return artifact
    return f"the job summary of [this workflow run]({run_url}) and {artifact}"
