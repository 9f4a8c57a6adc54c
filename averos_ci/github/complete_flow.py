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
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import httpx

from averos_ci.forge.context import FlowContext, open_context
from averos_ci.forge.events import PullRequestEvent, load_event
from averos_ci.github.patch_result import PatchResultError, read_result
from averos_ci.github.plan_flow import PLAN_ACTIONS, PlanOutcome, plan_for
from averos_ci.review.comment import StickyComment, find_sticky
from averos_ci.review.trust import trust_base


def complete_command(
    *,
    patch_path: Path,
    config_path: str | Path | None = None,
    environ: Mapping[str, str] | None = None,
    transport: httpx.BaseTransport | None = None,
) -> PlanOutcome | None:
    """Complete the plan comment of the ``pull_request`` event's head with the code change in
    ``patch_path``. ``None``: nothing to complete (the head moved on, another event)."""
    ctx = open_context(config_path=config_path, environ=environ, transport=transport)
    try:
        event = load_event(ctx.env.event_name, ctx.env.event_path)
        if not isinstance(event, PullRequestEvent) or event.action not in PLAN_ACTIONS:
            print(f"'{ctx.env.event_name}' event: no plan to complete")
            return None
        pr = event.pull_request
        if pr.is_fork(ctx.env.repository):
            print("pull request from a fork: its plan is in the plan job's summary only")
            return None
        trust_base(ctx, pr.base.sha)  # the project (its comment) is the base branch's
        sticky = _current_sticky(ctx, pr.number, pr.head.sha)
        if sticky is None:
            return None
        pusher = None
        if event.action in ("opened", "synchronize") and event.sender is not None:
            pusher = event.sender.login
        try:
            loaded = read_result(patch_path)
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
