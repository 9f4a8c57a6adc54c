"""The policy (:mod:`averos_ci.policy`) in the GitHub flow.

The policy is the base branch's (:mod:`averos_ci.review.trust`). At plan time its verdict is
shown in the comment and kept, compactly, in the comment's metadata for the approve step's
status; that copy is display only. At apply the recomputed plan is evaluated again, and a
violation or an unmet approval requirement refuses the apply (exit 1) and is written as JUnit
failures where the action writes its JUnit report.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from averos_ci._permission import Permission
from averos_ci.forge.context import FlowContext
from averos_ci.forge.protocol import Forge
from averos_ci.plan.model import ExecutionPlan
from averos_ci.policy.evaluate import PolicyResult, evaluate_policy
from averos_ci.report.policy_junit import write_policy_junit
from averos_ci.statebranch.errors import ApplyRefused


def policy_meta(result: PolicyResult) -> dict[str, Any]:
    """What the plan comment's metadata keeps of a verdict (rule names, not element lists)."""
    perm = result.required_permission
    return {
        "violations": [v.rule for v in result.violations],
        "permission": perm.value if perm else None,
        "approvals": result.required_approvals,
    }


@dataclass(frozen=True)
class PolicyVerdict:
    """Approvers who meet the policy's requirements, and why the requirements are unmet."""

    qualified: tuple[str, ...]
    unmet: str | None = None
    violations: tuple[str, ...] = ()

    @property
    def passed(self) -> bool:
        return self.unmet is None and not self.violations


def policy_verdict(
    client: Forge,
    approvers: Iterable[str],
    *,
    permission: Permission | None,
    count: int,
    violations: Iterable[str] = (),
) -> PolicyVerdict:
    """``approvers`` (valid under the approval rules) against the policy's requirements."""
    approvers = list(dict.fromkeys(approvers))
    qualified = tuple(
        a for a in approvers if permission is None or client.permission(a).rank >= permission.rank
    )
    unmet = None
    if len(qualified) < count:
        who = f" with '{permission.value}' permission or higher" if permission else ""
        unmet = f"the policy needs {count} distinct approver(s){who}; {len(qualified)} so far"
    return PolicyVerdict(qualified, unmet, tuple(violations))


def verdict_from_meta(client: Forge, approvers: Iterable[str], meta: Any) -> PolicyVerdict:
    """:func:`policy_verdict` with the requirements the plan comment recorded (status display
    only)."""
    data = getattr(meta, "policy", None) or {}
    perm = data.get("permission")
    return policy_verdict(
        client,
        approvers,
        permission=Permission(perm) if isinstance(perm, str) and perm in set(Permission) else None,
        count=int(data.get("approvals") or 1),
        violations=[str(v) for v in data.get("violations") or ()],
    )


def status_for(plan_hash: str, approvers: Iterable[str], g: PolicyVerdict) -> tuple[str, str]:
    """The commit status (state, description) of a plan with changes."""
    short = plan_hash[:12]
    approvers = list(approvers)
    if g.violations:
        return "failure", f"plan {short} violates the policy: {', '.join(g.violations)}"
    if not approvers:
        return "pending", f"plan {short} awaits approval"
    if g.unmet:
        return "pending", f"plan {short}: {g.unmet}"
    return "success", f"plan {short} approved by {', '.join(g.qualified)}"


def refuse_violations(ctx: FlowContext, plan: ExecutionPlan) -> PolicyResult:
    """At apply, before the approvals: a plan that violates the base branch's policy is
    refused (:class:`ApplyRefused`, JUnit failures written), whoever approved it."""
    result = evaluate_policy(plan, ctx.policy)
    if result.violations:
        _junit(ctx, result, {})
        raise ApplyRefused(
            f"plan {plan.plan_hash[:12]} violates the policy: "
            + "; ".join(f"{v.rule}: {v.message}" for v in result.violations),
            hint="change the manifest in a pull request so that the plan complies, or change "
            "'policy' in the config on the default branch",
        )
    return result


def enforce_requirements(
    ctx: FlowContext, plan: ExecutionPlan, approvers: list[str], result: PolicyResult
) -> list[str]:
    """At apply: the approvers who meet the policy's requirements for ``plan``; raises
    :class:`ApplyRefused` when they are not met (JUnit failures written)."""
    # An approval counts only from approvers meeting every requirement (the highest
    # permission asked), and the most approvals asked must be reached.
    g = policy_verdict(
        ctx.client,
        approvers,
        permission=result.required_permission,
        count=result.required_approvals,
    )
    unmet: dict[str, str] = {}
    if g.unmet:
        for r in result.requirements:
            own = policy_verdict(
                ctx.client, approvers, permission=r.permission, count=r.approvals or 1
            )
            if own.unmet:
                unmet[r.rule] = own.unmet
        if not unmet:  # each is met alone, not all together
            unmet = {r.rule: g.unmet for r in result.requirements}
    if result.requirements:
        _junit(ctx, result, unmet)
    if unmet:
        raise ApplyRefused(
            f"plan {plan.plan_hash[:12]} does not meet the policy's approval requirements: "
            + "; ".join(f"{rule}: {why}" for rule, why in unmet.items()),
            hint="users who meet the policy (see the plan comment) must approve the plan "
            "before merging",
        )
    return list(g.qualified)


def _junit(ctx: FlowContext, result: PolicyResult, unmet: dict[str, str]) -> None:
    # The folder of the apply's own reports ($RUNNER_TEMP/averos-ci/<project>); when the
    # policy refuses, nothing runs, so this is the step's JUnit report.
    base = Path(os.environ.get("RUNNER_TEMP") or tempfile.gettempdir())
    slug = "".join(c if c.isalnum() or c in "-_." else "-" for c in ctx.project).strip(".")
    path = base / "averos-ci" / (slug or "default") / "policy-junit.xml"
    write_policy_junit(path, result, unmet=unmet)
    if unmet or result.violations:
        ctx.report.set(junit_path=path)
