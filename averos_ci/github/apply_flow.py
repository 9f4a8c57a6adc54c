"""``push`` to the default branch (the merge) → bring the state up to the branch's manifest,
executing only plans whose exact planHash was approved on a merged pull request (the
catch-up: :mod:`averos_ci.github.catchup` chooses the steps, :mod:`averos_ci.github.apply_step`
applies each).

The state branch is the lock: a claim (``<project>/apply.json``) is pushed before anything is
executed; a rejected push means another job moved the branch, so we re-fetch and re-plan and
refuse if the plan changed. Checkpoints and the partly generated workspace are pushed while
the apply runs, so a job that dies is resumed by the next one.

Recovery when an apply was refused: the recomputed plan on the merged pull request, its
approval there (``issue_comment``), and a manual re-run (``workflow_dispatch``).

The catch-up (:mod:`averos_ci.github.catchup`) that stops at a merge no approval covers
rewrites that pull request's sticky plan comment with the plan recomputed against the current
state, with its approve line. An approval there is checked by the same rules as on an open
pull request (:func:`averos_ci.github.approve_flow.approve`); in the apply workflow
(``averos-ci github apply`` on ``issue_comment``) a counted approval on a merged pull request
then runs the catch-up. ``workflow_dispatch`` (input ``project``) runs it again by hand.
"""

from __future__ import annotations

from typing import Any

from averos_ci.forge.context import FlowContext
from averos_ci.forge.events import IssueCommentEvent, PushEvent, WorkflowDispatchEvent
from averos_ci.github.apply_run import ApplyFn, ApplyResult
from averos_ci.github.approve_flow import ApproveOutcome, approve
from averos_ci.github.catchup import catch_up
from averos_ci.review.trust import trust_base
from averos_ci.statebranch.state_branch import open_repo


def apply_merge(
    ctx: FlowContext, event: PushEvent, *, apply_fn: ApplyFn | None = None, cancel: Any = None
) -> ApplyResult:
    default = event.repository.default_branch
    if default and event.ref != f"refs/heads/{default}":
        print(f"{event.ref} is not the default branch ({default}): nothing to apply")
        return ApplyResult(None, False, True)
    trust_base(ctx, event.before)  # the approval rules of the branch merged into, not the PR's
    return catch_up(ctx, head=event.after, apply_fn=apply_fn, cancel=cancel)


def apply_on_approval(
    ctx: FlowContext,
    event: IssueCommentEvent,
    *,
    apply_fn: ApplyFn | None = None,
    cancel: Any = None,
) -> ApproveOutcome | ApplyResult:
    """``issue_comment`` in the apply workflow: record the approval (same rules as ``github
    approve``); when the pull request is merged, run the catch-up — whether or not the
    comment counted. Anyone can comment on a merged pull request, and this run replaced the
    pending push-triggered apply in the concurrency group: doing nothing would drop it. The
    catch-up applies approved steps only."""
    outcome = approve(ctx, event)
    pr = ctx.client.get_pull(event.issue.number)
    if not pr.get("merged_at"):
        if outcome.counted:
            print(f"#{event.issue.number} is not merged: it is applied on merge")
        return outcome
    print(f"comment on merged #{event.issue.number}: catching up")
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
    repo = open_repo(ctx.repo_root)
    head = repo.head.commit
    trust_base(ctx, head.parents[0].hexsha if head.parents else None)
    return catch_up(ctx, head=head.hexsha, apply_fn=apply_fn, cancel=cancel)
