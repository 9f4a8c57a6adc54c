"""The apply of one step: a commit's plan, executed only if its exact planHash was approved on
the pull request merged there (the catch-up, :mod:`averos_ci.github.catchup`, chooses the
steps; this module applies one).

The state branch is the lock: a claim (``<project>/apply.json``) is pushed before anything is
executed; a rejected push means another job moved the branch, so we re-fetch and re-plan and
refuse if the plan changed. Checkpoints and the partly generated workspace are pushed while
the apply runs, so a job that dies is resumed by the next one
(:mod:`averos_ci.github.apply_run` runs the claimed apply).
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from averos_ci._actions import annotate
from averos_ci.forge.context import FlowContext
from averos_ci.github.apply_run import ApplyFn, ApplyResult, execute_claimed
from averos_ci.planning import Planned, plan_project
from averos_ci.review.approvals import require_approval
from averos_ci.review.policy_check import refuse_violations
from averos_ci.statebranch.claim import (
    check_claim,
    read_claim,
    start_fresh,
    write_claim,
)
from averos_ci.statebranch.errors import ApplyConflicts, ApplyRefused
from averos_ci.statebranch.landing import Backoff, land
from averos_ci.statebranch.project_state import BranchState
from averos_ci.statebranch.seal import seal_progress, verify_progress
from averos_ci.statebranch.state_branch import StateBranch


@dataclass(frozen=True)
class PlannedStep:
    """A plan the caller already computed, with the state branch tip it was computed against:
    applied as is while the branch is still there, re-planned once it moved."""

    tip: str | None
    planned: Planned


def find_merged_pr(ctx: FlowContext, sha: str) -> dict[str, Any] | None:
    pulls = [p for p in ctx.client.pulls_for_commit(sha) if p.get("merged_at")]
    exact = [p for p in pulls if p.get("merge_commit_sha") == sha]
    candidates = exact or pulls
    return candidates[0] if candidates else None


def apply_step(
    ctx: FlowContext,
    sb: StateBranch,
    work: Path,
    *,
    sha: str,
    pr: dict[str, Any] | None,
    apply_fn: ApplyFn | None,
    cancel: Any,
    manifest_path: Path | None = None,
    planned: PlannedStep | None = None,
) -> ApplyResult:
    """Claim, then execute, the apply of commit ``sha`` (its manifest at ``manifest_path``,
    default: the checkout's) — only if that plan is approved on ``pr``. ``planned``: the plan
    the caller chose the step by; used as long as the state branch has not moved since."""
    s, project = ctx.settings, ctx.project
    manifest_path = manifest_path or ctx.config.manifest_path
    proj = work / "state" / project
    number = int(pr["number"]) if pr else None
    first_hash: str | None = None
    first_claim: dict[str, Any] | None = None
    approved = False
    approved_hash: str | None = None  # the full plan's, for a regenerating adapter
    approvers: tuple[str, ...] = ()  # the run record's approvedBy
    for attempt in range(s.push_attempts):
        tip = sb.fetch()
        sb.export(tip, project, proj)
        # an interrupted clean generation is resumed from regen/ on the same machine only:
        # one found on the state branch was planted there (its files would be taken as generated)
        shutil.rmtree(proj / "regen", ignore_errors=True)
        if planned is not None and planned.tip == tip:  # the same state: the same plan
            current = planned.planned
        else:  # refuses a checkout that lacks the app the state describes
            current = plan_project(
                ctx.config,
                BranchState(sb, tip, project),
                code_patch="off",
                manifest_path=manifest_path,
                fatal=True,
            )
        plan = current.plan
        if first_hash is None:
            first_hash = plan.plan_hash
            ctx.report.set(plan_hash=plan.plan_hash, has_changes=plan.has_changes)
            print(f"plan {plan.plan_hash} for {sha}")
        elif plan.plan_hash != first_hash:
            raise ApplyRefused(
                f"the state branch moved while this job ran and the plan changed "
                f"({first_hash[:12]} → {plan.plan_hash[:12]}); nothing was applied",
                hint="the approved plan is stale: push to a pull request to re-plan, approve "
                "the new plan and merge it",
            )
        if not plan.applicable:  # before "no changes": a conflicts-only plan has no nodes
            raise ApplyConflicts(f"plan {plan.plan_hash[:12]} has conflicts and cannot be applied")
        refuse_violations(ctx, plan)  # the policy: also a plan with nothing to run
        claim = read_claim(proj)
        if not plan.has_changes and claim is None:
            print("no changes: nothing to apply")
            ctx.report.set(approved=True, success=True, succeeded=0, failed=0, skipped=0)
            return ApplyResult(plan, False, True, number)
        if not approved:
            approval = require_approval(ctx, pr, plan, sha)
            approved_hash, approvers = approval.plan_hash, approval.approvers
            approved = True
            # from here on, everything this apply records names the approved planHash (for a
            # regenerating adapter the full one, its code change included): what an auditor
            # matches against the approval
            ctx.report.set(approved=True, plan_hash=approved_hash or plan.plan_hash)
        full_hash = approved_hash or plan.plan_hash
        check_claim(
            claim,
            first_claim,
            attempt=attempt,
            plan_hash=full_hash,
            sha=sha,
            run_id=ctx.env.run_id,
            branch=sb.branch,
            project=project,
        )
        if attempt == 0:
            first_claim = claim
        resumed = claim is not None
        if resumed:  # with a state key: only progress sealed under it (statebranch/seal.py)
            verify_progress(proj, key=ctx.env.state_key, project=project, branch=sb.branch)
        else:  # a fresh claim starts from nothing: never seal progress no claim covers
            _drop_unclaimed(proj, branch=sb.branch, project=project)
        write_claim(
            proj,
            claim,
            plan_hash=full_hash,
            sha=sha,
            pr=number,
            run_url=ctx.env.run_url,
            run_id=ctx.env.run_id,
            run_attempt=ctx.env.run_attempt,
        )
        seal_progress(proj, key=ctx.env.state_key, project=project)
        commit = sb.commit(
            parent=tip,
            subdir=project,
            src=proj,
            message=f"averos-ci: {project}: claim apply of {full_hash[:12]}",
        )
        landed = land(
            sb, project=project, commit=commit, base=tip, backoff=Backoff.from_settings(s)
        )
        if landed is not None:  # None: this project's own folder moved, so re-plan
            tip, claim_retries = landed.tip, landed.retries
            break
        print(f"{project}/ on {sb.branch} moved; re-fetching and re-planning")
    else:
        raise ApplyRefused(
            f"{sb.branch!r} kept moving; gave up after {s.push_attempts} attempts",
            hint="re-run the job",
        )
    return execute_claimed(
        ctx,
        sb,
        work,
        proj,
        tip,
        planned=current,
        sha=sha,
        number=number,
        resumed=resumed,
        apply_fn=apply_fn,
        cancel=cancel,
        manifest_path=manifest_path,
        approved_hash=approved_hash or plan.plan_hash,
        approvers=approvers,
        claim_retries=claim_retries,
    )


def _drop_unclaimed(proj: Path, *, branch: str, project: str) -> None:
    dropped = start_fresh(proj)
    if dropped:
        annotate(
            "warning",
            f"{branch!r} held progress for project {project!r} that no claim covers "
            f"({', '.join(dropped)}): discarded, the apply starts from scratch (if nobody "
            "wrote it there by hand, protect the state branch)",
        )
