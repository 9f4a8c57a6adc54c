"""The merge queue's check: which pull requests a group holds, and whether one of them approved
the group's plan under the same rules as the apply. The flow that asks is
:mod:`averos_ci.github.merge_group_flow`."""

from __future__ import annotations

import re

from averos_ci.forge.context import FlowContext
from averos_ci.plan import ExecutionPlan
from averos_ci.review.approvals import approval_view, approved_target
from averos_ci.review.owners import project_owners
from averos_ci.review.policy_check import enforce_requirements, refuse_violations
from averos_ci.review.project_status import project_context
from averos_ci.review.records import head_facts
from averos_ci.statebranch.errors import ApplyRefused

_QUEUE_REF = re.compile(r"/pr-(\d+)-[0-9a-f]{7,64}$")
MAX_GROUP_COMMITS = 500


def group_approval(
    ctx: FlowContext, plan: ExecutionPlan, pulls: tuple[int, ...]
) -> tuple[str, str]:
    """``(status, reason)``: is ``plan`` approved on one of ``pulls``? The same rules as the
    apply (:func:`averos_ci.review.approvals.require_approval`): the policy's violations
    refuse, and the approvers must meet its requirements."""
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
            owners=project_owners(ctx, str((pr.get("base") or {}).get("sha") or "") or None),
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
