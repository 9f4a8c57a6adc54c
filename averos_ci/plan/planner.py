"""Manifest + applied state -> ExecutionPlan (deterministic, hashed)."""

from __future__ import annotations

import graphlib
import hashlib
import heapq
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from averos_ci.plan.diff import diff_elements
from averos_ci.plan.elements import Element, elements
from averos_ci.plan.model import (
    PLAN_FORMAT_VERSION,
    Action,
    Bucket,
    ExecutionPlan,
    PlanCounts,
    PlanDiff,
    PlanNode,
    canonical_json,
)
from averos_ci.state.model import AppliedState, state_hash


@dataclass(frozen=True)
class PlanResult:
    plan: ExecutionPlan
    manifest: dict[str, Any]  # normalized manifest: what the state records after a full apply
    base_state: AppliedState | None
    warnings: tuple[str, ...] = ()  # rendered validation warnings


def sha256_json(value: object) -> str:
    return hashlib.sha256(canonical_json(value).encode()).hexdigest()


def args_hash(node: PlanNode) -> str:
    return sha256_json(node.args)


def compute_plan(
    *, manifest_path: str | Path, state: AppliedState | None, max_bytes: int | None = None
) -> PlanResult:
    """Load + validate the manifest (raises ManifestInvalid, exit 2) and plan it against state."""
    from averos_ci.manifest import format_text
    from averos_ci.manifest.validate import load_manifest

    kwargs = {"max_bytes": max_bytes} if max_bytes else {}
    manifest, issues = load_manifest(manifest_path, **kwargs)
    result = plan_manifest(manifest, state)
    warnings = tuple(format_text([i]) for i in issues)
    return PlanResult(result.plan, result.manifest, result.base_state, warnings)


def plan_manifest(manifest: dict[str, Any], state: AppliedState | None) -> PlanResult:
    """Plan an already normalized manifest against ``state``."""
    new = elements(manifest)
    old = elements(state.manifest) if state is not None else {}
    diff = diff_elements(old, new)
    ordered = _order(new)
    nodes = tuple(
        PlanNode.model_construct(id=e.id, phase=e.phase, command=e.command,
                                 action=diff.actions[e.key], depends_on=e.deps, args=e.args)
        for e in ordered
    )
    plan_diff = PlanDiff.model_construct(
        to_add=tuple(diff.changes[Bucket.TO_ADD]),
        to_update=tuple(diff.changes[Bucket.TO_UPDATE]),
        conflicts=tuple(diff.changes[Bucket.CONFLICTS]),
        to_remove=tuple(diff.changes[Bucket.TO_REMOVE]),
        unchanged=tuple(c.id for c in diff.changes[Bucket.UNCHANGED]),
    )
    counts = PlanCounts(
        create=sum(1 for n in nodes if n.action is Action.CREATE),
        update=sum(1 for n in nodes if n.action is Action.UPDATE),
        skip=sum(1 for n in nodes if n.action is Action.SKIP),
        conflicts=len(plan_diff.conflicts),
        remove=len(plan_diff.to_remove),
    )
    fields: dict[str, Any] = {
        "format_version": PLAN_FORMAT_VERSION,
        "manifest_hash": sha256_json(manifest),
        "base_state_hash": state_hash(state),
        "application_name": manifest["application"]["applicationName"],
        "applicable": not plan_diff.conflicts,
        "counts": counts,
        "diff": plan_diff,
        "nodes": nodes,
    }
    unhashed = ExecutionPlan.model_construct(plan_hash="", **fields)
    body = unhashed.to_wire()
    del body["planHash"]
    plan = ExecutionPlan.model_construct(plan_hash=sha256_json(body), **fields)
    return PlanResult(plan, manifest, state)


def _order(new: dict[str, Element]) -> list[Element]:
    """Stable topological order: among ready nodes, smallest (phase rank, order, id) first."""
    by_id = {e.id: e for e in new.values()}
    sorter: graphlib.TopologicalSorter[str] = graphlib.TopologicalSorter()
    for e in new.values():
        sorter.add(e.id, *e.deps)
    sorter.prepare()  # raises CycleError; the element table never builds one

    def key(node_id: str) -> tuple[int, str, int, str]:
        e = by_id[node_id]
        return (e.phase.rank, e.order[0], e.order[1], e.id)

    heap = [key(n) for n in sorter.get_ready()]
    heapq.heapify(heap)
    out: list[Element] = []
    while heap:
        node_id = heapq.heappop(heap)[3]
        out.append(by_id[node_id])
        sorter.done(node_id)
        for ready in sorter.get_ready():
            heapq.heappush(heap, key(ready))
    return out
