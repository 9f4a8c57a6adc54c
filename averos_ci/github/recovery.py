"""Recovery when an apply was refused: the recomputed plan on the merged pull request, its
approval there (``issue_comment``), and a manual re-run (``workflow_dispatch``).

The catch-up (:mod:`averos_ci.github.catchup`) that stops at a merge no approval covers
rewrites that pull request's sticky plan comment with the plan recomputed against the current
state, with its approve line. An approval there is checked by the same rules as on an open
pull request (:func:`averos_ci.github.approve_flow.approve`); in the apply workflow
(``averos-ci github apply`` on ``issue_comment``) a counted approval on a merged pull request
then runs the catch-up. ``workflow_dispatch`` (input ``project``) runs it again by hand.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from averos_ci.github.apply_flow import ApplyFn, ApplyResult
from averos_ci.github.approve_flow import ApproveOutcome, approve
from averos_ci.github.comment import (
    PlanMeta,
    find_sticky,
    render_plan_comment,
    restamp,
    status_text,
)
from averos_ci.github.context import FlowContext
from averos_ci.github.events import IssueCommentEvent, WorkflowDispatchEvent
from averos_ci.github.markdown import code
from averos_ci.github.state_branch import open_repo
from averos_ci.github.trust import trust_base
from averos_ci.plan import ExecutionPlan


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
    print(f"the recomputed plan {plan.plan_hash} is on #{number} for approval")


def apply_on_approval(
    ctx: FlowContext,
    event: IssueCommentEvent,
    *,
    apply_fn: ApplyFn | None = None,
    cancel: Any = None,
) -> ApproveOutcome | ApplyResult:
    """``issue_comment`` in the apply workflow: record the approval (same rules as ``github
    approve``); when it counts and the pull request is merged, run the catch-up."""
    outcome = approve(ctx, event)
    if not outcome.counted:
        return outcome
    pr = ctx.client.get_pull(event.issue.number)
    if not pr.get("merged_at"):
        print(f"#{event.issue.number} is not merged: it is applied on merge")
        return outcome
    print(f"approval on merged #{event.issue.number}: catching up")
    return _catch_up_here(ctx, apply_fn=apply_fn, cancel=cancel)


def apply_dispatch(
    ctx: FlowContext,
    event: WorkflowDispatchEvent,
    *,
    apply_fn: ApplyFn | None = None,
    cancel: Any = None,
) -> ApplyResult:
    """``workflow_dispatch`` with input ``project`` (empty: this config's project)."""
    default = event.repository.default_branch
    if default and event.ref != f"refs/heads/{default}":
        print(f"{event.ref} is not the default branch ({default}): nothing to apply")
        return ApplyResult(None, False, True)
    wanted = str((event.inputs or {}).get("project") or "").strip()
    if wanted and wanted != ctx.project:
        print(f"this is project {ctx.project!r}, the run is for {wanted!r}: nothing to do")
        return ApplyResult(None, False, True)
    return _catch_up_here(ctx, apply_fn=apply_fn, cancel=cancel)


def _catch_up_here(ctx: FlowContext, *, apply_fn: ApplyFn | None, cancel: Any) -> ApplyResult:
    """The catch-up to the checked-out commit (the default branch's head) under the approval
    rules of its first parent, as a push of that commit would have."""
    from averos_ci.github.catchup import catch_up

    repo = open_repo(ctx.repo_root)
    head = repo.head.commit
    trust_base(ctx, head.parents[0].hexsha if head.parents else None)
    return catch_up(ctx, head=head.hexsha, apply_fn=apply_fn, cancel=cancel)
