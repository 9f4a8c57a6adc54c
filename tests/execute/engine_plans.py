"""Plans built by hand, so engine tests need no manifest."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from averos_ci.plan.model import Action, ExecutionPlan, Phase, PlanCounts, PlanDiff, PlanNode

Edges = Mapping[str, Sequence[str]]


def build_plan(
    edges: Edges, *, plan_hash: str = "p" * 64, skip: Sequence[str] = ()
) -> ExecutionPlan:
    """``edges`` maps node id -> ids it depends on, in plan (topological) order."""
    nodes = tuple(
        PlanNode(id=node_id, phase=Phase.ENTITY, command="averos-entity",
                 action=Action.SKIP if node_id in skip else Action.CREATE,
                 depends_on=tuple(deps), args={"name": node_id})
        for node_id, deps in edges.items()
    )  # fmt: skip
    return ExecutionPlan(
        plan_hash=plan_hash, manifest_hash="m" * 64, base_state_hash="b" * 64,
        application_name="Demo", applicable=True,
        counts=PlanCounts(create=len(nodes), update=0, skip=0, conflicts=0, remove=0),
        diff=PlanDiff(), nodes=nodes,
    )  # fmt: skip


RunFn = Callable[..., Any]  # the ``run_plan`` fixture: (plan, **options) -> (RunResult, events)
