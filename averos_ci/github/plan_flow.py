"""``pull_request`` → the plan of the PR head against the state branch, in one sticky comment
per (PR, project), and the ``averos-ci/plan`` commit status on the head."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

import httpx

from averos_ci._markdown import code
from averos_ci.errors import AverosCIError
from averos_ci.forge.actions_env import ActionsEnv, annotate
from averos_ci.forge.api import GitHubAPIError, GitHubClient
from averos_ci.forge.context import FlowContext
from averos_ci.forge.events import PullRequest, PullRequestEvent, load_event
from averos_ci.forge.settings import GitHubSettings
from averos_ci.github.base_execution import base_execution
from averos_ci.github.patch_result import LoadedPatch, completed_plan
from averos_ci.github.plan_comment import (
    SUMMARY_MAX_CHARS,
    PlanOutcome,
    left_out_where,
    policy_section,
    publish_plan,
)
from averos_ci.plan.items import change_counts
from averos_ci.planning import code_patch_needed, plan_project
from averos_ci.review.comment import PlanMeta
from averos_ci.review.plan_status import fail_plan_status, failure_reason
from averos_ci.review.policy_check import policy_meta
from averos_ci.review.sections import CommentParts, render_comment
from averos_ci.review.trust import trust_base
from averos_ci.state.drift import render_drift
from averos_ci.statebranch.project_state import BranchState

PLAN_ACTIONS = frozenset({"opened", "synchronize", "reopened", "ready_for_review"})


def plan_pull_request(ctx: FlowContext, event: PullRequestEvent) -> PlanOutcome:
    if event.action not in PLAN_ACTIONS:
        print(f"pull_request '{event.action}': nothing to plan")
        return PlanOutcome(None, None, None, False, False)
    pusher = None
    if event.action in ("opened", "synchronize") and event.sender is not None:
        pusher = event.sender.login  # who pushed this head (averos_ci.review.pushers)
    return plan_for(ctx, event.pull_request, manifest_path=ctx.config.manifest_path, pusher=pusher)


def plan_for(
    ctx: FlowContext,
    pr: PullRequest,
    *,
    manifest_path: Path,
    trusted_run: bool = False,
    pusher: str | None = None,
    completion: LoadedPatch | None = None,
) -> PlanOutcome:
    """Plan ``manifest_path`` (the PR head's manifest) and publish it on ``pr``.

    A regenerating adapter's plan is published without its code change, marked pending
    (the patch job computes it without credentials); ``completion``: the patch job's result,
    read as data — the plan is then published with it (:mod:`averos_ci.github.complete_flow`).

    ``trusted_run``: a privileged run (``workflow_run``) that read only the manifest of a fork
    PR as data; it may comment where the fork's own run could not. ``pusher``: who pushed the
    head (the event's ``sender``), recorded with the plan (:mod:`averos_ci.review.records`).
    """
    try:
        return _plan_for(
            ctx,
            pr,
            manifest_path=manifest_path,
            trusted_run=trusted_run,
            pusher=pusher,
            completion=completion,
        )
    except BaseException as exc:
        # A required ``averos-ci/plan`` must never wait at "Expected": whatever stopped the
        # plan (invalid manifest, bad state, API error, a bug) becomes a ``failure`` with the
        # reason, and the exception goes on so that the exit code is unchanged.
        if not pr.is_fork(ctx.env.repository) or trusted_run:
            reason = failure_reason(exc).replace(f"{ctx.repo_root}{os.sep}", "")
            fail_plan_status(ctx, pr.head.sha, reason=reason, base=pr.base.sha, pr_number=pr.number)
        raise


def _plan_for(
    ctx: FlowContext,
    pr: PullRequest,
    *,
    manifest_path: Path,
    trusted_run: bool,
    pusher: str | None,
    completion: LoadedPatch | None,
) -> PlanOutcome:
    # the approval rules shown are the base branch's; a PR that changes them (or the status,
    # project, state branch …) needs an approval even when its plan changes nothing
    trusted_changes = trust_base(ctx, pr.base.sha)
    # shown against the plan's own, so a config-only change is visible to the reviewer
    base_exec, base_label = base_execution(ctx, pr.base.sha)
    head = pr.head.sha
    sb = ctx.state_branch()
    tip = sb.fetch()
    # the config checked as the apply's checks it; a drift is reported in the comment (the
    # apply refuses it); the code change comes from the patch job, which holds no credential
    source = BranchState(sb, tip, ctx.project)
    base = plan_project(
        ctx.config, source, code_patch="off", manifest_path=manifest_path, check=True
    )
    result = base.planned
    for warning in (*base.warnings, *result.warnings):
        annotate("warning", warning)
    plan = result.plan
    pending, semantic_hash = False, None
    if completion is not None:
        semantic_hash = plan.plan_hash
        plan = completed_plan(ctx, result, completion, head=head, state_tip=tip)
        if plan.plan_hash == semantic_hash:
            semantic_hash = None  # no code change to add
    else:  # the generation runs in the patch job (a fork's too: the follow-up completes it)
        pending = code_patch_needed(ctx.config, result)
    drift = base.drift if base.drift and (base.drift.has_drift or base.drift.modified) else None
    drift_note = render_drift(drift, "markdown") if drift else None
    blocked = drift is not None and drift.absent is not None
    verdict, policy_md = policy_section(ctx, plan)
    changed = change_counts(plan)  # as the comment shows them: a rename is no creation
    meta = PlanMeta(
        project=ctx.project,
        plan_hash=plan.plan_hash,
        head_sha=head,
        has_changes=plan.has_changes or bool(trusted_changes),
        applicable=plan.applicable,
        base_state=plan.base_state_hash,
        policy=policy_meta(verdict) if policy_md else None,
        pending=pending,
        semantic_hash=semantic_hash,
        counts={
            "create": changed.create,
            "update": changed.update,
            "replace": changed.replace,
            "rename": changed.rename,
            "remove": changed.delete,
            "conflicts": changed.conflicts,
        },
    )
    note = (
        "⚠️ This pull request changes settings that are read from the base branch ("
        + ", ".join(code(k) for k in trusted_changes)
        + "): they take effect after the merge, and the change needs an approval."
        if trusted_changes
        else None
    )
    if pending and trusted_run:  # `/averos plan` or a fork's workflow_run: no patch job here
        elsewhere = (
            "The code change is computed by the plan workflow's patch job only: re-run the "
            "latest *averos-ci plan* run of this head, or push."
        )
        note = f"{note}\n\n{elsewhere}" if note else elsewhere
    s = ctx.settings
    ctx.report.set(
        plan_hash=plan.plan_hash,
        has_changes=plan.has_changes,
        approved=not meta.has_changes,
        patch_needed=pending,
    )
    parts = CommentParts(
        meta=meta,
        plan=plan,
        settings=s,
        note=note,
        policy=policy_md,
        drift=drift_note,
        base_execution=base_exec,
        base_label=base_label,
        elsewhere=left_out_where(ctx.env.run_url),
    )
    # The job summary takes up to 1 MiB: there the plan is complete (or nearly so).
    ctx.report.add_summary(
        render_comment(replace(parts, elsewhere=left_out_where(None)), max_chars=SUMMARY_MAX_CHARS)
    )
    for v in verdict.violations:
        annotate("error", f"policy: {v.rule}: {v.message}")
    if drift_note:
        print(drift_note.rstrip())
    print(
        f"plan {plan.plan_hash} for {head}: {changed.create} create, {changed.update} update"
        + (f", {changed.replace} replace" if changed.replace else "")
        + (f", {changed.rename} rename" if changed.rename else "")
        + f", {changed.delete} remove, {changed.conflicts} conflict(s)"
        + ("; computing the code change in the patch job" if pending else "")
    )
    if pr.is_fork(ctx.env.repository) and not trusted_run:
        annotate(
            "notice",
            "pull request from a fork: the plan is in the job summary only "
            "(see docs/how-to/forks.md)",
        )
        return PlanOutcome(plan, head, None, False, False)
    try:
        return publish_plan(ctx, pr, parts, blocked=blocked, pusher=pusher)
    except GitHubAPIError as exc:
        if exc.status in (401, 403):  # read-only token: the summary and outputs are enough
            annotate("warning", f"cannot comment or set a status (read-only token?): {exc.message}")
            ctx.report.set(patch_needed=False)  # nobody could complete the comment
            return PlanOutcome(plan, head, None, False, False)
        raise


def fail_unconfigured_plan(
    exc: BaseException,
    *,
    environ: Mapping[str, str] | None = None,
    transport: httpx.BaseTransport | None = None,
) -> None:
    """The config could not be loaded, so there is no flow context: on a ``pull_request``
    still mark the head ``failure`` (default status context), best effort, so that a required
    status does not wait forever. Never raises."""
    try:
        env = ActionsEnv.from_environ(environ)
    except AverosCIError:
        return  # not in an Actions job: nowhere to report to
    try:
        if env.event_name != "pull_request":
            return
        event = load_event(env.event_name, env.event_path)
        if not isinstance(event, PullRequestEvent) or event.action not in PLAN_ACTIONS:
            return
        if event.pull_request.is_fork(env.repository):
            return  # a read-only token: the job log says it all
        reason = f"invalid config: {failure_reason(exc).removeprefix('plan failed: ')}"
        if env.workspace is not None:
            reason = reason.replace(f"{env.workspace.resolve()}{os.sep}", "")
        client = GitHubClient(
            token=env.token,
            repository=env.repository,
            api_url=env.api_url,
            max_retries=1,
            transport=transport,
        )
        try:
            client.set_status(
                event.pull_request.head.sha,
                state="failure",
                description=reason,
                context=GitHubSettings().status_context,
                target_url=env.run_url,
            )
        finally:
            client.close()
    except Exception as error:  # the config error is what the user must see
        annotate("warning", f"cannot set the plan status: {error}")
