"""The recomputed plan of a merge the catch-up stopped at, published on its merged pull
request: approvable there as any plan (:mod:`averos_ci.github.recovery` applies it).

With a regenerating adapter the plan carries its code change, computed here in-process
(:func:`with_code_change`): after a merge the checkout is the default branch's, the trusted
code the apply itself runs with credentials, so no patch job is needed. The apply then
executes exactly that full plan (``expected_plan_hash``) once it is approved.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from averos_ci.forge.context import FlowContext
from averos_ci.plan import ExecutionPlan
from averos_ci.planning import FileState, Planned, with_code_patch
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


def with_code_change(
    ctx: FlowContext, planned: Planned, *, state_dir: Path, manifest: Path
) -> tuple[ExecutionPlan, str | None]:
    """``planned``'s plan completed with its code change, as the apply computes it (the
    state exported at ``state_dir``, the checkout's workspace, generation in a scratch
    folder, the pristine store only read), and the semantic planHash it completes; the plan
    as it is and ``None`` when it needs no code change
    (:func:`~averos_ci.planning.code_patch_needed`)."""
    source = FileState(state_dir / "state.json", read_only=True)
    full = with_code_patch(planned, ctx.config, source, manifest_path=manifest)
    if full.patch is None:
        return planned.plan, None
    print(f"the code change of plan {planned.plan.plan_hash[:12]}: patch {full.patch.hash[:12]}")
    return full.plan, planned.plan.plan_hash


def publish_recomputed(
    ctx: FlowContext,
    pr: dict[str, Any],
    plan: ExecutionPlan,
    *,
    sha: str,
    later: int,
    semantic: str | None = None,
) -> None:
    """Show ``plan`` (``sha``'s manifest against the current state) in the merged PR's sticky
    comment, approvable as any plan: approvals of an earlier plan are void, and a comment
    approves it only if written after it was published (``headAt``). ``semantic``: the
    semantic planHash ``plan``'s code change completes (:func:`with_code_change`), recorded
    so that the apply finds the approved full plan (:mod:`averos_ci.review.records`)."""
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
        semantic_hash=semantic,
    )
    old = sticky.meta if sticky is not None else None
    if old is not None and old.plan_hash == meta.plan_hash and old.head_sha == pr_head:
        meta = replace(meta, approvals=old.current_approvals(), head_at=old.head_at)  # a re-run
    note = (
        f"⛔ **Not applied after the merge.** No approval here covers this merge's plan "
        f"against the current state (it was never approved, or the state, the manifest or "
        f"the workspace moved since). This is the plan of merge commit {code(sha[:12])} "
        f"recomputed against the current state. Approving it applies it"
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
            ctx.env.run_url,
            plan_hash=plan.plan_hash,
            pr_number=number,
            pusher=None,
            semantic=semantic,
        ),
    )
    print(f"the recomputed plan {plan.plan_hash} is on #{number} for approval")
