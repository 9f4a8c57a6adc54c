"""The plan's status on a commit: ``<statusContext>/<project>`` from the plan, its approvals
and the policy check, then the aggregate (:mod:`averos_ci.review.project_status`); and a
failed plan's."""

from __future__ import annotations

from averos_ci._actions import annotate
from averos_ci.errors import AverosCIError
from averos_ci.forge.context import FlowContext
from averos_ci.manifest.issues import ManifestInvalid
from averos_ci.plan import ExecutionPlan
from averos_ci.review.policy_check import PolicyVerdict, status_for
from averos_ci.review.project_status import set_project_status


def set_plan_status(
    ctx: FlowContext,
    sha: str,
    *,
    plan: ExecutionPlan,
    approvers: list[str],
    needs: bool | None = None,
    blocked: bool = False,
    gate: PolicyVerdict | None = None,
    base: str | None = None,
    pr_number: int | None = None,
    record: str | None = None,
    pending: bool = False,
) -> None:
    """``pending``: the code change is still being computed (nothing approves the plan yet).
    ``needs``: whether an approval is needed (default: the plan has changes);
    ``blocked``: the checkout lacks the application the state describes (drift). Sets the
    project's ``<statusContext>/<project>`` status, then the aggregate (:mod:`.project_status`);
    ``base``: the pull request's base commit, for the changed projects."""
    short = plan.plan_hash[:12]
    if blocked:
        state, text = "failure", "the checkout lacks the application the state describes (drift)"
    elif not plan.applicable:
        state, text = "failure", f"plan {short} has conflicts"
    elif gate is not None and gate.violations:
        state, text = status_for(plan.plan_hash, approvers, gate)
    elif pending:
        state, text = "pending", f"plan {short}: computing the code change…"
    elif not (plan.has_changes if needs is None else needs):
        state, text = "success", "no changes"
    elif gate is not None:  # the policy: violations fail, requirements gate the success
        state, text = status_for(plan.plan_hash, approvers, gate)
    elif approvers:
        state, text = "success", f"plan {short} approved by {', '.join(approvers)}"
    else:
        state, text = "pending", f"plan {short} awaits approval"
    set_project_status(
        ctx, sha, state=state, description=text, base=base, pr_number=pr_number, record=record
    )


def failure_reason(exc: BaseException) -> str:
    """One line for a status description: the first line of a user error, else its kind."""
    if isinstance(exc, KeyboardInterrupt):
        return "plan interrupted"
    if isinstance(exc, AverosCIError):
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        if isinstance(exc, ManifestInvalid):
            return f"invalid manifest: {first}"
        return f"plan failed: {first}"
    return f"internal error ({type(exc).__name__}); see the job log"


def fail_plan_status(
    ctx: FlowContext,
    sha: str,
    *,
    reason: str,
    base: str | None = None,
    pr_number: int | None = None,
) -> None:
    """Best effort: the job fails anyway; a status that cannot be set is only a warning."""
    try:
        set_project_status(
            ctx, sha, state="failure", description=reason, base=base, pr_number=pr_number
        )
    except Exception as exc:  # the original error matters more than this one
        annotate("warning", f"cannot set the {ctx.settings.status_context} status: {exc}")
