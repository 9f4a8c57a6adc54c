"""The recomputed plan of a merge the catch-up stopped at, published on its merged pull
request: approvable there as any plan (:mod:`averos_ci.github.apply_flow` applies it).

With a regenerating adapter the plan carries its code change, computed here in-process
(:func:`with_code_change`): after a merge the checkout is the default branch's, the trusted
code the apply itself runs with credentials, so no patch job is needed. The apply then
executes exactly that full plan (``expected_plan_hash``) once it is approved.
"""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any, NoReturn

from averos_ci._markdown import code
from averos_ci.execute.apply import PlanMismatch
from averos_ci.forge.context import FlowContext
from averos_ci.github.apply_run import comment_refusal
from averos_ci.github.base_execution import base_execution
from averos_ci.github.plan_comment import SUMMARY_MAX_CHARS, policy_section
from averos_ci.plan import ExecutionPlan
from averos_ci.planning import FileState, Planned, with_code_patch
from averos_ci.review.comment import PlanMeta, find_sticky, restamp, status_text
from averos_ci.review.policy_check import policy_meta
from averos_ci.review.project_status import project_context
from averos_ci.review.records import record_url
from averos_ci.review.sections import CommentParts, render_comment
from averos_ci.state.drift import DriftReport, render_drift
from averos_ci.statebranch.errors import ApplyConflicts, ApplyRefused
from averos_ci.statebranch.state_branch import StateBranch


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
    drift: DriftReport | None = None,
) -> None:
    """Show ``plan`` (``sha``'s manifest against the current state) in the merged PR's sticky
    comment, approvable as any plan and with the same sections as the plan flow's (policy,
    drift, execution diff, code change, the approval rules as configured): approvals of an
    earlier plan are void, and a comment approves it only if written after it was published
    (``headAt``). ``semantic``: the semantic planHash ``plan``'s code change completes
    (:func:`with_code_change`), recorded so that the apply finds the approved full plan
    (:mod:`averos_ci.review.records`); ``drift``: the planning's drift report, if any."""
    client, s = ctx.client, ctx.settings
    number = int(pr["number"])
    pr_head = str((pr.get("head") or {}).get("sha", ""))
    base_sha = str((pr.get("base") or {}).get("sha", "")) or None
    sticky = find_sticky(
        client.issue_comments(number), project=ctx.project, bot_login=ctx.bot_login()
    )
    verdict, policy_md = policy_section(ctx, plan)
    meta = PlanMeta(
        project=ctx.project,
        plan_hash=plan.plan_hash,
        head_sha=pr_head,
        has_changes=True,
        applicable=plan.applicable,
        base_state=plan.base_state_hash,
        policy=policy_meta(verdict) if policy_md else None,
        semantic_hash=semantic,
    )
    old = sticky.meta if sticky is not None else None
    if old is not None and old.plan_hash == meta.plan_hash and old.head_sha == pr_head:
        meta = replace(  # a re-run
            meta, approvals=old.current_approvals(), head_at=old.head_at, plan_at=old.plan_at
        )
    note = (
        f"⛔ **Not applied after the merge.** No approval here covers this merge's plan "
        f"against the current state (it was never approved, or the state, the manifest or "
        f"the workspace moved since). This is the plan of merge commit {code(sha[:12])} "
        f"recomputed against the current state. Approving it applies it"
        + (f" and resumes the catch-up ({later} later commit(s) wait)." if later > 0 else ".")
    )
    shown = drift if drift is not None and (drift.has_drift or drift.modified) else None
    base_exec, base_label = base_execution(ctx, base_sha)
    parts = CommentParts(
        meta=meta,
        plan=plan,
        settings=s,
        note=note,
        policy=policy_md,
        drift=render_drift(shown, "markdown") if shown else None,
        base_execution=base_exec,
        base_label=base_label,
        elsewhere=f"the job summary of [this run]({ctx.env.run_url})" if ctx.env.run_url else None,
    )
    body = render_comment(parts, max_chars=s.max_comment_chars)
    ctx.report.add_summary(render_comment(parts, max_chars=SUMMARY_MAX_CHARS))
    if sticky is None:
        written = client.create_comment(number, body)
    else:
        written = client.update_comment(sticky.id, body)
    if meta.head_at is None:  # GitHub's clock: only approvals written after this count
        when = str(written.get("updated_at") or written.get("created_at"))
        meta = replace(meta, head_at=when, plan_at=meta.plan_at or when)
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


def republish_mismatch(
    ctx: FlowContext,
    sb: StateBranch,
    work: Path,
    pr: Any,
    exc: PlanMismatch,
    *,
    sha: str,
    planned: Planned,
    manifest: Path,
) -> None:
    """The approved plan's code change is not the one the apply computed (the workspace or the
    pristine tree moved since it was shown): its merged PR gets the plan with the code change
    computed now, for a new approval; the earlier approvals pin the old planHash."""
    folder = work / "recheck"
    shutil.rmtree(folder, ignore_errors=True)
    sb.export(sb.fetch(), ctx.project, folder)
    shutil.rmtree(folder / "regen", ignore_errors=True)  # never resume a planted generation
    shown, semantic = with_code_change(ctx, planned, state_dir=folder, manifest=manifest)
    publish_recomputed(ctx, pr, shown, sha=sha, later=0, semantic=semantic)
    exc.hint = (
        f"the code change changed since the plan was approved (the workspace moved): approve "
        f"the recomputed plan on #{pr['number']} ({approve_text(shown)}), that resumes the "
        "catch-up"
    )


def approve_text(plan: ExecutionPlan) -> str:
    return f"/averos approve {plan.plan_hash[:12]}"


def stop_at(
    ctx: FlowContext,
    pr: Any,
    refusal: ApplyRefused,
    *,
    sha: str,
    planned: Planned,
    manifest: Path,
    state_dir: Path,
    behind: int,
    head: str,
) -> NoReturn:
    """The catch-up stops at ``sha``, the step ``refusal`` refused (``behind`` later steps
    wait): its merged pull request ``pr`` gets the plan recomputed there, with its code change
    (unless it conflicts), and the job fails with the refusal, saying how to resume."""
    number = int(pr["number"]) if pr else None
    shown = planned.plan
    if number is not None and not isinstance(refusal, ApplyConflicts):
        # with its code change: the apply executes exactly the plan approved there
        shown, semantic = with_code_change(ctx, planned, state_dir=state_dir, manifest=manifest)
        publish_recomputed(ctx, pr, shown, sha=sha, later=behind, semantic=semantic)
    ctx.report.set(plan_hash=shown.plan_hash, has_changes=True, success=False)
    if sha != head:
        refusal.message += (
            f" (stopped at {sha[:12]}"
            + (f", #{number}" if number else "")
            + f"; {behind} later commit(s) wait)"
        )
        refusal.args = (refusal.message,)
    if number is not None and not isinstance(refusal, ApplyConflicts):
        refusal.hint = (
            f"approve the recomputed plan on #{number} ({approve_text(shown)}): that "
            "resumes the catch-up; or re-run it with the workflow_dispatch trigger"
        )
    comment_refusal(ctx, number, refusal)
    raise refusal
