"""``merge_group`` (``checks_requested``): a merge queue asks whether the group may merge.

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
from averos_ci.review.approvals import approval_view, approved_target
from averos_ci.review.gate import project_context, set_project_status
from averos_ci.review.plan_status import fail_plan_status, failure_reason
from averos_ci.review.policy_gate import enforce_requirements, refuse_violations
from averos_ci.review.records import head_facts
from averos_ci.review.trust import trust_base
from averos_ci.statebranch.errors import ApplyRefused

_QUEUE_REF = re.compile(r"/pr-(\d+)-[0-9a-f]{7,64}$")
MAX_GROUP_COMMITS = 500


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
    planned = ctx.plan_state(sb, ctx.load_state(sb, tip)).planned
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
        state, reason = _approved(ctx, plan, pulls)
    set_project_status(ctx, head, state=state, description=reason, base=base)
    return MergeGroupOutcome(plan, head, state, reason, pulls)


def _approved(ctx: FlowContext, plan: ExecutionPlan, pulls: tuple[int, ...]) -> tuple[str, str]:
    """The same rules as the apply (:func:`averos_ci.review.approvals.require_approval`): the
    policy's violations refuse, and the approvers must meet its requirements."""
    short = plan.plan_hash[:12]
    try:
        policy = refuse_violations(ctx, plan)
    except ApplyRefused as exc:
        return "failure", str(exc).splitlines()[0]
    if not pulls:
        return "failure", f"plan {short}: no pull request of this group was found"
    seen: list[str] = []
    for number in pulls:
        pr = ctx.client.get_pull(number)
        head = str((pr.get("head") or {}).get("sha") or "")
        facts = head_facts(
            ctx.client,
            head,
            context=project_context(ctx.settings.status_context, ctx.project),
            pr_number=number,
            bot_login=ctx.bot_login(),
        )
        if facts.shown is None:
            continue
        if facts.pending:
            seen.append(f"#{number}: its code change is still being computed")
            continue
        target = approved_target(facts, plan)  # a regenerating adapter's full plan
        if facts.shown != target:
            seen.append(f"#{number} shows {facts.shown[:12]}")
            continue
        approvers = approval_view(
            ctx.client,
            pr_number=number,
            pr_author=str((pr.get("user") or {}).get("login") or ""),
            plan_hash=target,
            head_sha=head,
            settings=ctx.settings,
            project=ctx.project,
            bot_login=ctx.bot_login(),
            facts=facts,
        ).approvers
        if not approvers:
            seen.append(f"#{number} has no valid approval")
            continue
        try:
            qualified = enforce_requirements(ctx, plan, list(approvers), policy)
        except ApplyRefused as exc:
            seen.append(f"#{number}: {str(exc).splitlines()[0]}")
            continue
        return "success", f"plan {short} approved on #{number} by {', '.join(qualified)}"
    where = "; ".join(seen) or "no pull request of the group has a plan for it"
    return "failure", f"plan {short} is not approved ({where})"


def group_pulls(ctx: FlowContext, *, base: str, head: str, head_ref: str) -> list[int]:
    """The pull requests in the group, never from commit subjects (a pull request's title
    writes them): the one the queue's own ref names (``gh-readonly-queue/<base>/pr-<N>-…``,
    made by GitHub), and those the API associates with a first-parent commit between base
    and head or with one of its other parents (a queued pull request's head)."""
    found: list[int] = []
    if match := _QUEUE_REF.search(head_ref):
        found.append(int(match[1]))
    repo = ctx.state_branch().repo
    log = str(
        repo.git.log(
            "--first-parent",
            f"--max-count={MAX_GROUP_COMMITS}",
            "--format=%H %P",
            f"{base}..{head}",
        )
    )
    for line in log.splitlines():
        sha, *parents = line.split()
        for candidate in (sha, *parents[1:]):
            for pr in ctx.client.pulls_for_commit(candidate):
                pr_head = str((pr.get("head") or {}).get("sha") or "")
                if isinstance(pr.get("number"), int) and pr_head in (sha, *parents[1:]):
                    found.append(int(pr["number"]))
    return list(dict.fromkeys(found))


def fetch_base(ctx: FlowContext, base_ref: str) -> str:
    """Older payloads have no ``base_sha``: the base branch's tip, fetched now."""
    branch = base_ref.removeprefix("refs/heads/")
    private = f"refs/averos-ci/queue-base/{branch}"
    repo = ctx.state_branch().repo
    repo.git.fetch("--no-tags", "--quiet", ctx.settings.remote, f"+refs/heads/{branch}:{private}")
    return str(repo.git.rev_parse(private)).strip()
