"""``averos-ci github complete``: add the patch job's code change to the plan comment.

Runs in a job of its own with the comment/status token, after the patch job
(:mod:`averos_ci.github.patch_flow`). It executes nothing of the pull request: it re-plans
the manifest as data (as the plan job does), reads the patch job's result file as data
(:mod:`averos_ci.github.patch_result`), checks that the result is bound to this project, this
head, this semantic plan and this base state, and publishes the full plan — the semantic plan
with the code change, whose planHash covers both (:func:`averos_ci.plan.patch.with_patch`, the
function the local ``plan`` uses). Approvals bind to that hash; the apply executes exactly
that plan or refuses. A result bound to anything else is refused, with a failure status that
asks for a re-plan.

A fork pull request's own run has a read-only token: its patch job runs (it holds none
anyway) but its ``complete`` job cannot comment. The privileged ``workflow_run`` follow-up
(examples/workflows/averos-fork-comment.yml) completes it instead: it finds the pull request
as :func:`~averos_ci.github.fork_flow.plan_fork_run` does, re-plans the head's manifest read
as data and publishes the plan with the triggering run's result, bound the same way.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import httpx

from averos_ci.forge.context import FlowContext, open_context
from averos_ci.forge.events import PullRequest, PullRequestEvent, WorkflowRunEvent, load_event
from averos_ci.github.fork_flow import plan_pull_head, run_pull
from averos_ci.github.patch_result import LoadedPatch, PatchResultError, read_result
from averos_ci.github.plan_comment import PlanOutcome
from averos_ci.github.plan_flow import PLAN_ACTIONS, plan_for
from averos_ci.review.comment import StickyComment, find_sticky
from averos_ci.review.trust import trust_base


def complete_command(
    *,
    patch_path: Path,
    config_path: str | Path | None = None,
    environ: Mapping[str, str] | None = None,
    transport: httpx.BaseTransport | None = None,
) -> PlanOutcome | None:
    """Complete the plan comment of the ``pull_request`` event's head (or, for a fork, of the
    ``workflow_run`` event's pull request) with the code change in ``patch_path``. ``None``:
    nothing to complete (the head moved on, another event)."""
    ctx = open_context(config_path=config_path, environ=environ, transport=transport)
    try:
        event = load_event(ctx.env.event_name, ctx.env.event_path)
        if isinstance(event, WorkflowRunEvent) and _from_fork(ctx, event):
            return _complete_fork(ctx, event, patch_path)
        if not isinstance(event, PullRequestEvent) or event.action not in PLAN_ACTIONS:
            print(f"'{ctx.env.event_name}' event: no plan to complete")
            return None
        pr = event.pull_request
        if pr.is_fork(ctx.env.repository):
            print(
                "pull request from a fork: its plan is in the plan job's summary; the "
                "privileged follow-up (averos-fork-comment.yml) comments and completes it"
            )
            return None
        trust_base(ctx, pr.base.sha)  # the project (its comment) is the base branch's
        sticky = _current_sticky(ctx, pr.number, pr.head.sha)
        if sticky is None:
            return None
        pusher = None
        if event.action in ("opened", "synchronize") and event.sender is not None:
            pusher = event.sender.login
        loaded = _read(ctx, pr, patch_path)
        if loaded.patch is None and not (sticky.meta and sticky.meta.pending):
            # a monorepo runs the patch job for every changed project: most need none
            print("no code change to add: the plan comment is complete")
            return None
        return plan_for(
            ctx,
            pr,
            manifest_path=ctx.config.manifest_path,
            pusher=pusher,
            completion=loaded,
        )
    finally:
        ctx.report.flush()
        ctx.close()


def _from_fork(ctx: FlowContext, event: WorkflowRunEvent) -> bool:
    repo = event.workflow_run.head_repository
    return repo is not None and repo.full_name != ctx.env.repository


def _complete_fork(
    ctx: FlowContext, event: WorkflowRunEvent, patch_path: Path
) -> PlanOutcome | None:
    """The fork follow-up's ``complete`` step, after its ``plan`` step posted the plan: the
    same re-plan as that step (the head's manifest read as data), completed with the result of
    the triggering run's patch job — read as data, refused unless bound to this head, semantic
    plan and base state."""
    found = run_pull(ctx, event, doing="complete")
    if found is None:
        return None
    pr, pusher = found
    if not pr.is_fork(ctx.env.repository):
        print(f"pull request #{pr.number} is not from a fork: no plan to complete")
        return None
    trust_base(ctx, pr.base.sha)
    sticky = _current_sticky(ctx, pr.number, pr.head.sha)
    if sticky is None:
        return None
    if not (sticky.meta and sticky.meta.pending):
        # the plan step (no patch-needed output crosses runs) found no code change to compute
        print("no code change to add: the plan comment is complete")
        return None
    loaded = _read(ctx, pr, patch_path)
    return plan_pull_head(ctx, pr, pr.head.sha, pusher=pusher, completion=loaded)


def _read(ctx: FlowContext, pr: PullRequest, patch_path: Path) -> LoadedPatch:
    """The patch job's result, read as data; a missing or malformed one fails the status."""
    try:
        return read_result(patch_path)
    except PatchResultError as exc:
        # plan_for marks the head failed for errors raised inside; this one comes first
        from averos_ci.review.plan_status import fail_plan_status, failure_reason

        fail_plan_status(
            ctx,
            pr.head.sha,
            reason=f"code change refused: {failure_reason(exc).removeprefix('plan failed: ')}",
            base=pr.base.sha,
            pr_number=pr.number,
        )
        raise


def _current_sticky(ctx: FlowContext, number: int, head: str) -> StickyComment | None:
    """This project's plan comment for ``head``; ``None`` (and why, printed) when there is
    none or a newer push replaced the head — its own plan workflow completes its comment."""
    current = str((ctx.client.get_pull(number).get("head") or {}).get("sha") or "")
    if current and current != head:
        print(f"the head moved to {current[:12]}: the plan of {head[:12]} is not completed")
        return None
    sticky = find_sticky(
        ctx.client.issue_comments(number), project=ctx.project, bot_login=ctx.bot_login()
    )
    if sticky is None or sticky.meta is None:
        print("no plan comment of this project to complete (did the plan job fail?)")
        return None
    if sticky.meta.head_sha != head:
        print(f"the plan comment shows {sticky.meta.head_sha[:12]}: not completing {head[:12]}")
        return None
    return sticky
