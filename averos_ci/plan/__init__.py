"""Layer 3: semantic diff and deterministic execution plan."""

from averos_ci.plan.canonical import canonical_json
from averos_ci.plan.model import (
    PLAN_FORMAT_VERSION,
    Action,
    AttributeChange,
    AttrOp,
    Bucket,
    Change,
    ExecutionPlan,
    Phase,
    PlanCounts,
    PlanDiff,
    PlanNode,
)
from averos_ci.plan.planner import PlanResult, args_hash, compute_plan, plan_manifest

__all__ = [
    "PLAN_FORMAT_VERSION",
    "Action",
    "AttrOp",
    "AttributeChange",
    "Bucket",
    "Change",
    "ExecutionPlan",
    "Phase",
    "PlanCounts",
    "PlanDiff",
    "PlanNode",
    "PlanResult",
    "args_hash",
    "canonical_json",
    "compute_plan",
    "plan_manifest",
]
