"""The run of a claimed apply: the engine executes the approved plan while its progress is
pushed to the state branch; then the workspace is kept, the run recorded (who approved it
included) and the pull request told. :mod:`averos_ci.github.apply_step` claims it first.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from averos_ci._actions import annotate
from averos_ci._markdown import code, escape
from averos_ci.errors import Interrupted, RunFailed
from averos_ci.execute.hints import apply_failure_hint
from averos_ci.forge.context import FlowContext
from averos_ci.github.commit_back import keep_workspace
from averos_ci.plan import ExecutionPlan
from averos_ci.planning import Planned
from averos_ci.review.comment import RESULT_MARKER
from averos_ci.review.outdated import mark_outdated
from averos_ci.statebranch.claim import CHECKPOINTS, PARTIAL, finish, release_claim
from averos_ci.statebranch.keep import record_location
from averos_ci.statebranch.landing import Backoff
from averos_ci.statebranch.progress import ProgressPusher, ProjectWriter
from averos_ci.statebranch.restore import restore_generated
from averos_ci.statebranch.state_branch import StateBranch
from averos_ci.statebranch.workspace import changed_files


@dataclass(frozen=True)
class ApplyResult:
    plan: ExecutionPlan | None
    applied: bool
    success: bool
    pr_number: int | None = None
    resumed: bool = False
    summary: Any = None  # RunnerSummary when something ran
    steps: tuple[str, ...] = ()  # the commits applied on the way (catch-up), oldest first


ApplyFn = Callable[..., Any]


def execute_claimed(
    ctx: FlowContext,
    sb: StateBranch,
    work: Path,
    proj: Path,
    tip: str,
    *,
    planned: Planned,
    sha: str,
    number: int | None,
    resumed: bool,
    apply_fn: ApplyFn | None,
    cancel: Any,
    manifest_path: Path,
    approved_hash: str,
    approvers: tuple[str, ...],
    claim_retries: int = 0,
) -> ApplyResult:
    s, project, plan = ctx.settings, ctx.project, planned.plan
    approved = approved_hash  # what every record of this apply names (the full planHash)
    if apply_fn is None:
        from averos_ci.planning import apply as engine_apply

        apply_fn = engine_apply
    if resumed and (proj / PARTIAL).is_dir():
        count = restore_generated(proj / PARTIAL, repo_root=ctx.repo_root, config=ctx.config)
        print(
            f"resuming an interrupted apply of {approved[:12]} ({count} workspace file(s) restored)"
        )
    writer = ProjectWriter(sb, project, proj, tip, Backoff.from_settings(s))
    pusher = ProgressPusher(
        writer,
        s.progress_interval_seconds,
        workspace_root=ctx.config.workspace_root,
        state_key=ctx.env.state_key,
    )
    pusher.busy(claim_retries)  # a claim that other projects' jobs made wait: a busy branch
    logs = _reports_dir(ctx) / "logs"  # per-node logs and driver stderr outlive the job's tmp
    config = ctx.config.with_overrides(
        state_path=proj / "state.json",
        checkpoint_path=proj / CHECKPOINTS,
        logs_dir=logs,
        manifest_path=manifest_path,  # the manifest of the commit applied, not the checkout's
    )
    junit = _reports_dir(ctx) / "junit.xml"
    ctx.report.set(junit_path=junit, logs_path=logs)
    try:
        outcome = apply_fn(
            config,
            resume=resumed,
            junit=junit,
            listeners=[pusher],
            cancel=cancel,
            # exactly the approved plan, whatever was restored: for a regenerating adapter
            # the full plan, its code change included (averos_ci.review.approvals)
            expected_plan_hash=approved,
            # the plan just checked, unless a resumed apply restored files it did not see
            planned=None if resumed else planned,
        )
    except BaseException:
        if (proj / CHECKPOINTS).exists():
            _safe_flush(pusher, "interrupted")
        else:  # nothing ran (bad input, missing toolchain): release the claim
            release_claim(proj)
            _safe_flush(pusher, "released: nothing ran")
        raise
    summary = outcome.summary
    ctx.report.set(
        success=summary.success,
        succeeded=summary.succeeded,
        failed=summary.failed,
        skipped=summary.skipped,
    )
    if not summary.success:
        _safe_flush(pusher, "stopped" if outcome.interrupted else "failed")
        hint = apply_failure_hint(
            summary, interrupted=outcome.interrupted, branch=sb.branch, project=project
        )
        text = (
            f"❌ **Apply of plan {code(approved[:12])} did not complete**: "
            f"{summary.succeeded} succeeded, {summary.failed} failed, {summary.skipped} "
            f"skipped, {summary.cancelled} cancelled. Progress is saved on "
            f"{code(sb.branch)}; {escape(hint)}."
        )
        if number is not None:
            comment_result(ctx, number, text + run_link(ctx))
        error = Interrupted if outcome.interrupted else RunFailed
        raise error(
            f"apply of plan {approved[:12]} did not complete"
            + (f" ({outcome.interrupted})" if outcome.interrupted else ""),
            hint=f"see the logs in {logs}; {hint}",
        )
    changes = changed_files(sb.repo, ctx.config.workspace_root)
    kept = keep_workspace(ctx, sha, changes, approved)
    record_location(proj / "state.json", kept)
    finish(
        proj,
        {
            "planHash": approved,
            "sha": sha,
            "pr": number,
            "runUrl": ctx.env.run_url,
            "resumed": resumed,
            "summary": summary.to_wire(),
            "resumedNodes": sum(1 for r in getattr(outcome, "records", ()) if r.resumed),
            "approvedBy": list(approvers),
        },
        sha=sha,
    )
    writer.push(f"averos-ci: {project}: applied {approved[:12]} ({sha[:12]})")
    where = kept.note
    if number is not None:
        comment_result(
            ctx,
            number,
            f"✅ **Applied plan {code(approved[:12])}** from {code(sha[:12])}: "
            f"{summary.succeeded} succeeded, {summary.skipped} skipped"
            + (" (resumed)" if resumed else "")
            + "."
            + where
            + run_link(ctx),
        )
    mark_outdated(ctx, plan_hash=approved, merged=number)  # other PRs' plans of it
    return ApplyResult(plan, True, True, number, resumed, summary)


def _reports_dir(ctx: FlowContext) -> Path:
    """Outside the checkout (so reports never count as workspace changes), kept after the
    step for upload: ``$RUNNER_TEMP/averos-ci/<project>`` under Actions (else the temp dir)."""
    base = Path(os.environ.get("RUNNER_TEMP") or tempfile.gettempdir())
    slug = "".join(c if c.isalnum() or c in "-_." else "-" for c in ctx.project).strip(".")
    return base / "averos-ci" / (slug or "default")


def _safe_flush(pusher: ProgressPusher, why: str) -> None:
    try:
        pusher.flush(why)
    except Exception as exc:  # the original failure matters more; say what was not saved
        annotate("warning", f"progress could not be pushed to the state branch: {exc}")


def comment_result(ctx: FlowContext, number: int, text: str) -> None:
    try:
        ctx.client.create_comment(number, RESULT_MARKER.format(project=ctx.project) + "\n" + text)
    except Exception as exc:
        annotate("warning", f"could not comment on #{number}: {exc}")


def run_link(ctx: FlowContext) -> str:
    return f" [Run]({ctx.env.run_url})" if ctx.env.run_url else ""


def comment_refusal(ctx: FlowContext, number: int | None, exc: Exception) -> None:
    """Tell the merged pull request why its step was not applied (the job fails)."""
    ctx.report.set(success=False)
    if number is None:
        return
    message = getattr(exc, "message", str(exc))
    hint = getattr(exc, "hint", None)
    comment_result(
        ctx,
        number,
        f"⛔ **Not applied.** {escape(message)}" + (f"\n\n{escape(hint)}" if hint else ""),
    )
