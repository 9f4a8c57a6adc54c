"""Manifest + applied state -> ExecutionPlan (deterministic, hashed)."""

from __future__ import annotations

import contextlib
import gc
import graphlib
import heapq
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from averos_ci._model import fast_construct
from averos_ci.errors import StateError
from averos_ci.plan.canonical import item_json
from averos_ci.plan.canonical import sha256_json as sha256_json  # its historical home
from averos_ci.plan.diff import diff_elements
from averos_ci.plan.elements import Element, elements
from averos_ci.plan.model import (
    PLAN_FORMAT_VERSION,
    Action,
    AttributeWire,
    Bucket,
    Change,
    ExecutionPlan,
    Phase,
    PlanCounts,
    PlanDiff,
    PlanNode,
    attribute_wire,
)
from averos_ci.plan.sensitive import SensitiveRules
from averos_ci.state.model import AppliedState, state_hash


@dataclass(frozen=True)
class PlanResult:
    plan: ExecutionPlan
    manifest: dict[str, Any]  # normalized manifest: what the state records after a full apply
    base_state: AppliedState | None
    warnings: tuple[str, ...] = ()  # rendered validation warnings


def args_hash(node: PlanNode) -> str:
    return sha256_json(node.args)


def compute_plan(
    *,
    manifest_path: str | Path,
    state: AppliedState | None,
    max_bytes: int | None = None,
    execution: Mapping[str, Any] | None = None,
    repair: Mapping[str, tuple[str, ...]] | None = None,
) -> PlanResult:
    """Load + validate the manifest (raises ManifestInvalid, exit 2) and plan it against state.

    ``execution``: the execution settings the plan's identity covers
    (:func:`averos_ci.execute.adapters.identity.execution_identity`). ``repair``: node id ->
    generated files found missing (drift); those nodes are re-run."""
    from averos_ci.manifest import format_text
    from averos_ci.manifest.validate import load_manifest

    kwargs = {"max_bytes": max_bytes} if max_bytes else {}
    manifest, issues = load_manifest(manifest_path, **kwargs)
    result = plan_manifest(manifest, state, execution=execution, repair=repair)
    warnings = tuple(format_text([i]) for i in issues)
    return PlanResult(result.plan, result.manifest, result.base_state, warnings)


@contextlib.contextmanager
def no_cyclic_gc() -> Iterator[None]:
    """The planner allocates millions of small acyclic objects on large manifests; the cyclic
    collector's repeated full passes over them cost more than the planning itself (2-4x).
    The ``plan`` command holds it from reading the manifest to writing the plan: the parsed
    document and the plan's wire are as large, and refcounting frees them all the same."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def plan_manifest(
    manifest: dict[str, Any],
    state: AppliedState | None,
    *,
    execution: Mapping[str, Any] | None = None,
    repair: Mapping[str, tuple[str, ...]] | None = None,
) -> PlanResult:
    """Plan an already normalized manifest against ``state`` (and ``execution`` settings)."""
    with no_cyclic_gc():
        return _plan_manifest(manifest, state, execution, repair)


def _plan_manifest(
    manifest: dict[str, Any],
    state: AppliedState | None,
    execution: Mapping[str, Any] | None,
    repair: Mapping[str, tuple[str, ...]] | None = None,
) -> PlanResult:
    rules = SensitiveRules.of_execution(execution)  # flags the attributes every render masks
    new = elements(manifest, sensitive=rules)
    old = _state_elements(state, rules) if state is not None else {}
    diff = diff_elements(old, new)
    unchanged_ids = {c.id for c in diff.changes[Bucket.UNCHANGED]}
    repairs = {k: tuple(v) for k, v in sorted((repair or {}).items()) if k in unchanged_ids}
    nodes: list[PlanNode] = []
    wire_nodes: list[dict[str, Any]] = []
    tally = dict.fromkeys(_ACTIONS, 0)
    for e in _order(new):
        action = Action.CREATE if e.id in repairs else diff.actions[e.key]
        tally[action] += 1
        values: dict[str, object] = {
            "id": e.id,
            "phase": e.phase,
            "command": e.command,
            "action": action,
            "depends_on": e.deps,
            "args": e.args,
        }
        # every field is set: one shared "fields set" for all (frozen) nodes, not one each
        nodes.append(fast_construct(PlanNode, values, _NODE_FIELDS))
        wire_nodes.append(
            {
                "id": e.id,
                "phase": _VALUES[e.phase],  # a dict, not the enum's (slow) ``value``
                "command": e.command,
                "action": _VALUES[action],
                "dependsOn": list(e.deps),
                "args": e.args,
            }
        )
    plan_diff = PlanDiff(
        to_add=tuple(diff.changes[Bucket.TO_ADD]),
        to_update=tuple(diff.changes[Bucket.TO_UPDATE]),
        conflicts=tuple(diff.changes[Bucket.CONFLICTS]),
        to_remove=tuple(diff.changes[Bucket.TO_REMOVE]),
        unchanged=tuple(c.id for c in diff.changes[Bucket.UNCHANGED]),
    )
    # The elements, the old ones and the diff's tables are not part of the plan: free them
    # before the wire is built (on 5,000 entities they are ~60 MB of the peak).
    del new, old, diff, unchanged_ids
    counts = PlanCounts(
        create=tally[_CREATE],
        update=tally[_UPDATE],
        skip=tally[_SKIP] - len(plan_diff.conflicts),  # conflicts are skipped, not unchanged
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
        "nodes": tuple(nodes),
    }
    wire: dict[str, Any] = {
        "formatVersion": PLAN_FORMAT_VERSION,
        "manifestHash": fields["manifest_hash"],
        "baseStateHash": fields["base_state_hash"],
        "applicationName": fields["application_name"],
        "applicable": fields["applicable"],
        "counts": counts.to_wire(),
        "diff": _diff_wire(plan_diff),
        "nodes": wire_nodes,
    }
    if execution is not None:
        fields["execution"] = wire["execution"] = dict(execution)
    if repairs:  # only then: plans (and their hashes) without drift stay as they were
        wire["repair"] = {k: list(v) for k, v in repairs.items()}
    fields["repair"] = repairs
    fields["code_patch"] = None  # added by averos_ci.plan.patch.with_patch
    # each node and diff entry encoded once: for the planHash and for the JSON rendering
    items = item_json(wire_nodes, *(wire["diff"][k] for k in _CHANGE_LISTS))
    # over everything else: format, hashes, diff, nodes
    wire["planHash"] = sha256_json(wire, items=items)
    plan = fast_construct(ExecutionPlan, {**fields, "plan_hash": wire["planHash"]})
    object.__setattr__(plan, "__pydantic_private__", {"_wire": wire, "_item_json": items})
    return PlanResult(plan, manifest, state)


def _change_wire(c: Change, wires: dict[int, AttributeWire]) -> dict[str, Any]:
    # By hand, not through pydantic: large plans carry ~5 attributes per node (equal to
    # ``PlanDiff.to_wire()``, which a test checks). A shared attribute (attributes.py) has one
    # wire form too, read-only like the rest of the cached wire.
    out = []
    for a in c.attributes:
        wire = wires.get(id(a))
        if wire is None:
            wire = wires[id(a)] = attribute_wire(a.__dict__)
        out.append(wire)
    return {
        "attributes": out,
        "bucket": _VALUES[c.bucket],
        "fields": list(c.fields),
        "id": c.id,
        "kind": c.kind,
        "reason": c.reason,
        "renamedFrom": c.renamed_from,
    }


def _diff_wire(diff: PlanDiff) -> dict[str, Any]:
    wires: dict[int, AttributeWire] = {}  # id of an attribute (alive in ``diff``) -> its wire
    return {
        "toAdd": [_change_wire(c, wires) for c in diff.to_add],
        "toUpdate": [_change_wire(c, wires) for c in diff.to_update],
        "conflicts": [_change_wire(c, wires) for c in diff.conflicts],
        "toRemove": [_change_wire(c, wires) for c in diff.to_remove],
        "unchanged": list(diff.unchanged),
    }


_CHANGE_LISTS = ("toAdd", "toUpdate", "conflicts", "toRemove")


def _state_elements(state: AppliedState, rules: SensitiveRules) -> dict[str, Element]:
    try:
        return elements(state.manifest, sensitive=rules)
    except (KeyError, TypeError, AttributeError, ValueError) as exc:
        raise StateError(
            f"the state file's manifest is malformed ({type(exc).__name__}: {exc})",
            hint="restore the state file from the state branch or version control",
        ) from None


_ACTIONS = tuple(Action)
_VALUES: dict[object, str] = {m: m.value for enum in (Action, Bucket, Phase) for m in enum}
_NODE_FIELDS = set(PlanNode.model_fields)
_CREATE, _UPDATE, _SKIP = Action.CREATE, Action.UPDATE, Action.SKIP


def _order(new: dict[str, Element]) -> list[Element]:
    """Stable topological order: among ready nodes, smallest (phase rank, order, id) first.

    One pass of Kahn's algorithm over the nodes' places in that order (ints compare faster
    than tuples). graphlib's sorter did the same with a cycle search first and a call per node
    (0.8 s of CPU on 5,000 entities, a fifth of it here); it still decides every case this
    pass does not expect (a cycle, an unknown dependency, a repeated id), so those fail as
    they did."""
    ranks = {phase: phase.rank for phase in Phase}
    by_key = sorted(new.values(), key=lambda e: (ranks[e.phase], *e.order, e.id))
    place = {e.id: i for i, e in enumerate(by_key)}
    if len(place) != len(by_key):
        return _graphlib_order(new, by_key, place)
    waiting = [len(e.deps) for e in by_key]  # dependencies not done yet (repeats count twice)
    dependents: list[list[int]] = [[] for _ in by_key]
    for i, e in enumerate(by_key):
        for dep in e.deps:
            at = place.get(dep)
            if at is None:
                return _graphlib_order(new, by_key, place)
            dependents[at].append(i)
    heap = [i for i, count in enumerate(waiting) if not count]  # ascending: already a heap
    out: list[Element] = []
    pop, push = heapq.heappop, heapq.heappush
    while heap:
        i = pop(heap)
        out.append(by_key[i])
        for j in dependents[i]:
            waiting[j] -= 1
            if not waiting[j]:
                push(heap, j)
    if len(out) != len(by_key):  # a cycle: graphlib finds and reports it (CycleError)
        return _graphlib_order(new, by_key, place)
    return out


def _graphlib_order(
    new: dict[str, Element], by_key: list[Element], place: dict[str, int]
) -> list[Element]:
    """:func:`_order` by graphlib's sorter, as it always was: raises its ``CycleError`` on a
    cycle (the nodes added in the table's order: the same cycle is reported)."""
    sorter: graphlib.TopologicalSorter[str] = graphlib.TopologicalSorter()
    for e in new.values():
        sorter.add(e.id, *e.deps)
    sorter.prepare()  # raises CycleError; the element table never builds one
    heap = [place[n] for n in sorter.get_ready()]
    heapq.heapify(heap)
    out: list[Element] = []
    while heap:
        e = by_key[heapq.heappop(heap)]
        out.append(e)
        sorter.done(e.id)
        for ready in sorter.get_ready():
            heapq.heappush(heap, place[ready])
    return out
