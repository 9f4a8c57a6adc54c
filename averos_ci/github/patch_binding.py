"""Whether a patch job's result belongs to the plan computed now, and the full plan it makes.

Used by the ``complete`` job through :func:`averos_ci.github.plan_flow.plan_for`: the result
is data from a job that ran the pull request's code (:mod:`averos_ci.github.patch_result`), so
it must be bound to this project, head, semantic plan and base state before its code change is
shown — and the full planHash is computed here, by :func:`averos_ci.plan.patch.with_patch`,
never taken from the file.
"""

from __future__ import annotations

from averos_ci.forge.context import FlowContext
from averos_ci.github.patch_result import LoadedPatch, PatchResultError
from averos_ci.plan import ExecutionPlan
from averos_ci.plan.patch import with_patch
from averos_ci.plan.planner import PlanResult
from averos_ci.planning import code_patch_needed

REPLAN = (
    "re-run the plan workflow (its latest run for this head, or push) so that the plan and its "
)


def completed_plan(
    ctx: FlowContext, planned: PlanResult, loaded: LoadedPatch, *, head: str, state_tip: str | None
) -> ExecutionPlan:
    """The semantic plan computed now, completed with ``loaded``'s code change — after
    checking what the result is bound to. Raises :class:`PatchResultError` (exit 2)."""
    r, plan, path = loaded.result, planned.plan, loaded.path
    checks = (
        ("project", r.project, ctx.project),
        ("head", r.head_sha, head),
        ("semantic plan", r.semantic_plan_hash, plan.plan_hash),
        ("base state", r.base_state_hash, plan.base_state_hash),
    )
    for what, got, want in checks:
        if got != want:
            raise PatchResultError(
                f"the code change was computed for {what} {str(got)[:12]}, the plan is for "
                f"{what} {str(want)[:12]}: refused",
                path=path,
                hint=REPLAN + "code change are computed together again",
            )
    if r.state_tip != state_tip:
        # another project's apply moved the branch; this project's state is the same (above)
        print(
            f"the state branch moved ({str(r.state_tip)[:12]} → {str(state_tip)[:12]}); this "
            "project's state did not"
        )
    needed = code_patch_needed(ctx.config, planned)
    if loaded.patch is None:
        if needed:
            raise PatchResultError(
                "the result holds no code change, but this plan needs one: refused",
                path=path,
                hint=REPLAN + "code change are computed together again",
            )
        return plan
    if not needed:
        raise PatchResultError(
            "the result holds a code change, but this plan needs none: refused",
            path=path,
            hint=REPLAN + "code change are computed together again",
        )
    return with_patch(plan, loaded.patch)
