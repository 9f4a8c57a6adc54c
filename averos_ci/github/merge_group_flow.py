"""``merge_group`` (``checks_requested``): a merge queue asks whether the group may merge.

The flow; the group's pull requests and the approval rule are :mod:`averos_ci.review.merge_group`.

The group's head (the commit the queue would merge: the base plus the queued pull requests)
is planned against the state branch. The project's status on that head — and through it the
aggregate required status — is success only when exactly that plan (same planHash) is approved
on a pull request of the group under the same rules as the apply (the policy's violations and
approval requirements included), or has no changes; otherwise failure with the reason, so the
queue drops the pull request instead of merging a plan nobody approved. The apply after the
queue merges is the usual ``push`` apply.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from averos_ci._actions import annotate
from averos_ci.errors import AverosCIError, ExitCode
from averos_ci.forge.context import FlowContext
from averos_ci.forge.events import EventError, MergeGroupEvent
from averos_ci.plan import ExecutionPlan
from averos_ci.planning import plan_project
from averos_ci.review.merge_group import fetch_base, group_approval, group_pulls
from averos_ci.review.plan_status import fail_plan_status, failure_reason
from averos_ci.review.project_status import set_project_status
from averos_ci.review.trust import trust_base
from averos_ci.statebranch.project_state import BranchState


class MergeGroupRefused(AverosCIError):
    """The group's plan is not an approved plan: the queue must not merge it (exit 1)."""

    exit_code = ExitCode.FAILED


@dataclass(frozen=True)
class MergeGroupOutcome:
    plan: ExecutionPlan | None
    head_sha: str
    state: str  # the project's status: success | failure
    reason: str
    pulls: tuple[int, ...] = ()


def check_merge_group(ctx: FlowContext, event: MergeGroupEvent) -> MergeGroupOutcome | None:
    group = event.merge_group
    if event.action != "checks_requested":
        print(f"merge_group '{event.action}': nothing to check")
        return None
    head = group.head_sha
    for sha in (head, group.base_sha or "0" * 40):
        if not re.fullmatch(r"[0-9a-f]{40}", sha):
            raise EventError(
                f"/merge_group: {sha[:64]!r} is not a commit sha", path=ctx.env.event_path
            )
    try:
        base = group.base_sha or fetch_base(ctx, group.base_ref)
        trust_base(ctx, base)  # the approval rules of the branch the queue merges into
        outcome = _check(ctx, head, base, group.head_ref)
    except MergeGroupRefused:
        raise
    except BaseException as exc:  # the required status must resolve, never wait
        fail_plan_status(ctx, head, reason=failure_reason(exc), base=group.base_sha)
        raise
    ctx.report.set(
        plan_hash=outcome.plan.plan_hash if outcome.plan else "",
        approved=outcome.state == "success",
    )
    ctx.report.add_summary(
        f"## averos-ci merge queue — {ctx.project}\n\n"
        f"{'✅' if outcome.state == 'success' else '⛔'} {outcome.reason}\n"
    )
    if outcome.state != "success":
        raise MergeGroupRefused(
            f"merge group {head[:12]}: {outcome.reason}",
            hint="approve this exact plan on the pull request (re-plan with a push or "
            "'/averos plan' if the state moved), then queue it again",
        )
    print(f"merge group {head[:12]}: {outcome.reason}")
    return outcome


def _check(ctx: FlowContext, head: str, base: str, head_ref: str) -> MergeGroupOutcome:
    sb = ctx.state_branch()
    tip = sb.fetch()
    planned = plan_project(
        ctx.config, BranchState(sb, tip, ctx.project), code_patch="off", fatal=True
    ).planned
    for warning in planned.warnings:
        annotate("warning", warning)
    plan, short = planned.plan, planned.plan.plan_hash[:12]
    print(f"plan {plan.plan_hash} for the merge group {head}")
    pulls = tuple(group_pulls(ctx, base=base, head=head, head_ref=head_ref))
    if not plan.applicable:
        state, reason = "failure", f"plan {short} has conflicts"
    elif not plan.has_changes:
        state, reason = "success", "no changes"
    else:
        state, reason = group_approval(ctx, plan, pulls)
    set_project_status(ctx, head, state=state, description=reason, base=base)
    return MergeGroupOutcome(plan, head, state, reason, pulls)
