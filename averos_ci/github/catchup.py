"""Catch-up: bring a project's state from its last applied commit to the default branch's head,
through approved plans only.

``concurrency`` cancels pending apply runs, and a job can fail or be skipped: the merge it was
for must not be lost, nor applied unapproved. So each apply walks the first-parent history of
the default branch from the commit the state was last applied from (the newest run record on
the state branch, checked against the state's manifest hash) to the head, and takes the
*furthest* step whose plan — that commit's manifest, planned against the current state, as
the pull request's plan was — is approved on the pull request merged there (the same
:func:`~averos_ci.review.approvals.require_approval` as ever: same base state, manifest and
planHash). Then again from there. Where no approved plan covers the next step, it stops: the
pull request of the next step gets the recomputed plan in its sticky comment (approvable
there, see :mod:`averos_ci.github.apply_flow`), and the rest stays pending. With a regenerating
adapter that plan carries its code change, computed here from the default branch's checkout
(:func:`~averos_ci.github.recomputed.with_code_change`); and an approved plan whose code change
is no longer the one the apply computes (the workspace moved) is refused and republished so.

Every step is planned with the checkout's config (adapter, options); the manifest is read
from each commit with git. A claim left by an interrupted apply is resumed first.
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import git

from averos_ci.errors import InputError
from averos_ci.execute.apply import PlanMismatch
from averos_ci.forge.context import FlowContext
from averos_ci.github.apply_run import ApplyFn, ApplyResult, comment_refusal
from averos_ci.github.apply_step import PlannedStep, apply_step, find_merged_pr
from averos_ci.github.recomputed import (
    republish_mismatch,
    stop_at,
)
from averos_ci.plan import ExecutionPlan
from averos_ci.planning import Planned, plan_project
from averos_ci.review.approvals import require_approval
from averos_ci.review.policy_check import refuse_violations
from averos_ci.state.drift import WorkspaceMismatch
from averos_ci.state.guard import AdapterMismatch
from averos_ci.statebranch.claim import read_claim
from averos_ci.statebranch.errors import ApplyConflicts, ApplyRefused
from averos_ci.statebranch.history import (
    MAX_STEPS,
    is_ancestor,
    pending_steps,
    read_at,
)
from averos_ci.statebranch.project_state import BranchState
from averos_ci.statebranch.state_branch import StateBranch


@dataclass(frozen=True)
class Step:
    sha: str
    manifest: Path  # the manifest at ``sha``, as a file
    planned: Planned  # planned against the current state
    tip: str | None  # the state branch commit holding that state

    @property
    def plan(self) -> ExecutionPlan:
        return self.planned.plan


def catch_up(
    ctx: FlowContext, *, head: str, apply_fn: ApplyFn | None = None, cancel: Any = None
) -> ApplyResult:
    """Apply approved steps until the state holds ``head``'s manifest, or refuse at the first
    step no approval covers (:class:`ApplyRefused`, exit 1; conflicts exit 5)."""
    sb = ctx.state_branch()
    work = Path(tempfile.mkdtemp(prefix="averos-ci-apply-"))
    done: list[tuple[str, ApplyResult]] = []
    try:
        for _ in range(MAX_STEPS + 1):  # each step moves the state forward: bounded
            try:
                step, pr = _next_step(ctx, sb, work, head=head)
            except (WorkspaceMismatch, AdapterMismatch) as exc:  # no step can run on this base
                merged = find_merged_pr(ctx, head)
                comment_refusal(ctx, int(merged["number"]) if merged else None, exc)
                raise
            if step is None:
                return _result(done, pr if isinstance(pr, ApplyResult) else None)
            number = int(pr["number"]) if pr else None
            print(f"applying {step.sha[:12]}" + (f" (#{number})" if number else ""))
            try:
                result = apply_step(
                    ctx,
                    sb,
                    work / "step",
                    sha=step.sha,
                    pr=pr,
                    apply_fn=apply_fn,
                    cancel=cancel,
                    manifest_path=step.manifest,
                    planned=PlannedStep(step.tip, step.planned),  # re-planned only if the tip moved
                )
            except (ApplyRefused, WorkspaceMismatch, AdapterMismatch) as exc:
                comment_refusal(ctx, number, exc)
                raise
            except PlanMismatch as exc:  # the approved code change is not the one computed now
                if pr is not None:
                    republish_mismatch(
                        ctx,
                        sb,
                        work,
                        pr,
                        exc,
                        sha=step.sha,
                        planned=step.planned,
                        manifest=step.manifest,
                    )
                comment_refusal(ctx, number, exc)
                raise
            done.append((step.sha, result))
            if step.sha == head or not result.applied:
                break
        return _result(done, None)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _result(done: list[tuple[str, ApplyResult]], nothing: ApplyResult | None) -> ApplyResult:
    if not done:
        return nothing or ApplyResult(None, False, True)
    final = done[-1][1]
    return ApplyResult(
        final.plan,
        any(r.applied for _, r in done),
        all(r.success for _, r in done),
        final.pr_number,
        final.resumed,
        final.summary,
        tuple(sha for sha, r in done if r.applied),
    )


def _next_step(
    ctx: FlowContext, sb: StateBranch, work: Path, *, head: str
) -> tuple[Step | None, Any]:  # (step, its merged PR) or (None, an ApplyResult or None)
    """The step to apply now with its merged PR, or ``(None, outcome)`` when there is none."""
    tip = sb.fetch()
    peek = work / "peek"
    sb.export(tip, ctx.project, peek)
    source = BranchState(sb, tip, ctx.project)
    state = source.load()
    claim = read_claim(peek)
    repo = sb.repo
    rel = _manifest_rel(ctx)
    manifests = work / "manifests"

    def step_at(sha: str) -> Step:
        return Step(sha, *_plan_at(ctx, repo, sha, rel, manifests, source), tip)

    if claim is not None and is_ancestor(repo, str(claim.get("sha")), head):
        # an interrupted apply is resumed first — if its commit is a merged PR's, as every
        # claim averos-ci writes is (the branch is untrusted: anything else is refused as
        # "another apply holds" by the claim check, and the approval is checked anyway)
        sha = str(claim["sha"])
        merged = find_merged_pr(ctx, sha)
        if merged is not None:
            print(f"an interrupted apply of {sha[:12]} is on the state branch: it comes first")
            return step_at(sha), merged
    commits, anchored = pending_steps(repo, peek, state, head=head, rel=rel, step_at=step_at)
    if not commits:
        return None, None
    tail = step_at(head) if commits[-1] == head else None
    # a conflicts-only plan has no nodes either: it is refused below, never "no changes"
    if tail is not None and tail.plan.applicable and not tail.plan.has_changes and claim is None:
        try:  # the policy: also a plan with nothing to run (e.g. removals only)
            refuse_violations(ctx, tail.plan)
        except ApplyRefused as exc:
            merged = find_merged_pr(ctx, head)
            comment_refusal(ctx, int(merged["number"]) if merged else None, exc)
            raise
        print("no changes: nothing to apply")
        ctx.report.set(
            plan_hash=tail.plan.plan_hash,
            has_changes=False,
            approved=True,
            success=True,
            succeeded=0,
            failed=0,
            skipped=0,
        )
        return None, ApplyResult(tail.plan, False, True)
    refusals: dict[str, tuple[Step, Any, ApplyRefused]] = {}
    for sha in reversed(commits):  # the furthest approved step first
        step = tail if sha == head and tail is not None else step_at(sha)
        if not step.plan.has_changes or not step.plan.applicable:
            if not step.plan.applicable:
                refusals[sha] = (step, find_merged_pr(ctx, sha), _conflicts(step))
            continue
        pr = find_merged_pr(ctx, sha)
        try:
            require_approval(ctx, pr, step.plan, sha)
        except ApplyRefused as exc:
            refusals[sha] = (step, pr, exc)
            continue
        return step, pr
    # nothing approved: stop at the next step (the oldest that changes something); with no
    # known starting point (never applied), at the newest — history is no queue then
    order = commits if anchored else list(reversed(commits))
    first = next((refusals[s] for s in order if s in refusals), None)
    if first is None:
        return None, None
    step, pr, refusal = first
    behind = len(commits) - commits.index(step.sha) - 1
    stop_at(
        ctx,
        pr,
        refusal,
        sha=step.sha,
        planned=step.planned,
        manifest=step.manifest,
        state_dir=peek,
        behind=behind,
        head=head,
    )


def _conflicts(step: Step) -> ApplyConflicts:
    return ApplyConflicts(
        f"plan {step.plan.plan_hash[:12]} of {step.sha[:12]} has conflicts and cannot be applied"
    )


def _plan_at(
    ctx: FlowContext,
    repo: git.Repo,
    sha: str,
    rel: str,
    dest: Path,
    source: BranchState,
) -> tuple[Path, Planned]:
    folder = dest / sha
    manifest = folder / Path(rel).name  # keep the name: the suffix selects JSON or YAML
    if not manifest.is_file():
        data = read_at(repo, sha, rel)
        if data is None:
            raise InputError(
                f"commit {sha[:12]} has no {rel}",
                hint="the manifest must exist in every commit an apply catches up through",
            )
        folder.mkdir(parents=True, exist_ok=True)
        manifest.write_bytes(data)
    return manifest, plan_project(
        ctx.config, source, code_patch="off", manifest_path=manifest, fatal=True
    )


def _manifest_rel(ctx: FlowContext) -> str:
    try:
        return ctx.config.manifest_path.resolve().relative_to(ctx.repo_root).as_posix()
    except ValueError:
        raise InputError(
            "manifestPath is outside the repository", path=ctx.config.config_path
        ) from None
