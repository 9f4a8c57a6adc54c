"""The recomputed plan of a merge the catch-up stopped at, published on its merged pull
request: approvable there as any plan (:mod:`averos_ci.github.recovery` applies it)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from averos_ci.forge.context import FlowContext
from averos_ci.plan import ExecutionPlan
from averos_ci.review.comment import (
    PlanMeta,
    find_sticky,
    render_plan_comment,
    restamp,
    status_text,
)
from averos_ci.review.gate import project_context
from averos_ci.review.markdown import code
from averos_ci.review.records import record_url


def publish_recomputed(
    ctx: FlowContext,
    pr: dict[str, Any],
    plan: ExecutionPlan,
    *,
    sha: str,
    later: int,
) -> None:
    """Show ``plan`` (``sha``'s manifest against the current state) in the merged PR's sticky
    comment, approvable as any plan: approvals of an earlier plan are void, and a comment
    approves it only if written after it was published (``headAt``)."""
    client, s = ctx.client, ctx.settings
    number = int(pr["number"])
    pr_head = str((pr.get("head") or {}).get("sha", ""))
    sticky = find_sticky(
        client.issue_comments(number), project=ctx.project, bot_login=ctx.bot_login()
    )
    meta = PlanMeta(
        project=ctx.project,
        plan_hash=plan.plan_hash,
        head_sha=pr_head,
        has_changes=True,
        applicable=plan.applicable,
    )
    old = sticky.meta if sticky is not None else None
    if old is not None and old.plan_hash == meta.plan_hash and old.head_sha == pr_head:
        meta = replace(meta, approvals=old.current_approvals(), head_at=old.head_at)  # a re-run
    note = (
        f"⛔ **Not applied after the merge.** No approval here covers this merge's plan "
        f"against the current state (it was never approved, or the state or the manifest "
        f"moved since). This is the plan of merge commit {code(sha[:12])} recomputed against "
        f"the current state. Approving it applies it"
        + (f" and resumes the catch-up ({later} later commit(s) wait)." if later > 0 else ".")
    )
    body = render_plan_comment(
        meta=meta,
        plan=plan,
        max_chars=s.max_comment_chars,
        permission=s.approval_permission.value,
        self_approval=s.allow_self_approval,
        pusher_approval=s.allow_pusher_approval,
        note=note,
    )
    if sticky is None:
        written = client.create_comment(number, body)
    else:
        written = client.update_comment(sticky.id, body)
    if meta.head_at is None:  # GitHub's clock: only approvals written after this count
        meta = replace(meta, head_at=str(written.get("updated_at") or written.get("created_at")))
        client.update_comment(int(written["id"]), restamp(body, meta, status_text(meta, (), note)))
    # The record approvals are checked against (averos_ci.review.records), never the comment.
    client.set_status(
        pr_head,
        state="pending",
        description=f"recomputed plan {plan.plan_hash[:12]} awaits approval",
        context=project_context(s.status_context, ctx.project),
        target_url=record_url(
            ctx.env.run_url, plan_hash=plan.plan_hash, pr_number=number, pusher=None
        ),
    )
    print(f"the recomputed plan {plan.plan_hash} is on #{number} for approval")
