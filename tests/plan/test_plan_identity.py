"""Issue 3: planHash binds the plan to its inputs, and every rendering shows it."""

from __future__ import annotations

import copy
import hashlib
import json
from dataclasses import replace
from pathlib import Path

import pytest

from averos_ci.config import RunConfig, default_config
from averos_ci.execute.adapters.identity import execution_identity
from averos_ci.plan import ExecutionPlan, canonical_json, compute_plan
from averos_ci.plan.render import RENDERERS, render_json
from averos_ci.state import AppliedState, state_hash
from tests.conftest import GOLDEN_MANIFEST
from tests.plan.plan_samples import EXAMPLE_MANIFEST, applied, example_raw, plan_of


def test_equal_inputs_give_equal_plan_hash(tmp_path: pytest.TempPathFactory) -> None:
    raw = example_raw()
    state = applied(raw)
    assert plan_of(raw).plan_hash == plan_of(copy.deepcopy(raw)).plan_hash
    assert plan_of(raw, state).plan_hash == plan_of(raw, applied(raw)).plan_hash
    # the same manifest from YAML (the example file) and from JSON (plan_of's temp file)
    assert (
        compute_plan(manifest_path=EXAMPLE_MANIFEST, state=None).plan.plan_hash
        == plan_of(raw).plan_hash
    )


def test_state_change_changes_plan_hash_but_not_nodes() -> None:
    raw = example_raw()
    one, two = applied(raw, serial=1), applied(raw, serial=2)
    assert state_hash(one) != state_hash(two)
    a, b = plan_of(raw, one), plan_of(raw, two)
    assert a.nodes == b.nodes
    assert a.base_state_hash == state_hash(one) and b.base_state_hash == state_hash(two)
    assert a.plan_hash != b.plan_hash
    assert plan_of(raw).plan_hash not in {a.plan_hash, b.plan_hash}
    assert plan_of(raw).base_state_hash == state_hash(None)


def test_manifest_change_changes_plan_hash() -> None:
    raw = example_raw()
    other = copy.deepcopy(raw)
    other["description"] = "changed"
    assert plan_of(raw).plan_hash != plan_of(other).plan_hash
    assert plan_of(raw).manifest_hash != plan_of(other).manifest_hash


def test_plan_hash_is_the_hash_of_the_rest_of_the_plan() -> None:
    plan = plan_of(example_raw())
    body = json.loads(plan.to_json())
    claimed = body.pop("planHash")
    assert claimed == plan.plan_hash
    assert hashlib.sha256(canonical_json(body).encode()).hexdigest() == claimed
    assert {"manifestHash", "baseStateHash", "nodes", "diff"} <= set(body)


@pytest.mark.parametrize(
    "manifest", [EXAMPLE_MANIFEST, GOLDEN_MANIFEST], ids=["todoapp", "averos-golden"]
)
def test_wire_form_round_trips_through_the_model(manifest: object) -> None:
    """The planner builds its JSON by hand (fast path); it must equal what the model dumps."""
    plan = compute_plan(manifest_path=manifest, state=None).plan  # type: ignore[arg-type]
    wire = plan.to_wire()
    again = ExecutionPlan.model_validate(json.loads(json.dumps(wire)))
    assert again.model_dump(mode="json", by_alias=True) == wire
    assert again.plan_hash == plan.plan_hash
    assert again.nodes == plan.nodes
    assert render_json(again) == render_json(plan)


def test_wire_form_round_trips_with_updates_and_replacements() -> None:
    old = example_raw()
    new = copy.deepcopy(old)
    new["description"] = "changed"
    new["entities"][1]["members"][3]["memberType"] = "string"  # ToDoTask.dueDate: replaced
    plan = plan_of(new, applied(old))
    assert plan.diff.to_update and any(c.reason for c in plan.diff.to_update)
    wire = plan.to_wire()
    again = ExecutionPlan.model_validate(json.loads(json.dumps(wire)))
    assert again.model_dump(mode="json", by_alias=True) == wire


@pytest.mark.parametrize("fmt", sorted(RENDERERS))
def test_every_rendering_shows_the_plan_hash(fmt: str) -> None:
    raw = example_raw()
    for state in (None, applied(raw)):
        plan = plan_of(raw, state)
        assert plan.plan_hash in RENDERERS[fmt](plan)


def test_public_api_names_exist() -> None:
    import averos_ci.state

    for module in (averos_ci.plan, averos_ci.state):
        assert module.__all__, module
        for name in module.__all__:
            assert hasattr(module, name), f"{module.__name__}.{name}"
        assert len(set(module.__all__)) == len(module.__all__)
    assert {"compute_plan", "plan_manifest", "ExecutionPlan", "PlanNode"} <= set(
        averos_ci.plan.__all__
    )
    assert {"AppliedState", "FileStateStore", "MemoryStateStore", "state_hash"} <= set(
        averos_ci.state.__all__
    )
    assert isinstance(AppliedState, type)


def test_the_execution_settings_are_part_of_the_plan_identity(tmp_path: Path) -> None:
    """Another adapter, registry, collection or workspace is another plan (so an approval
    does not carry over); the mock's test knobs (latency, simulated failures) are not."""
    base = replace(
        default_config(tmp_path),
        adapter="angular-schematics",
        adapter_options={"collection": "@wiforge/averos"},
    )

    def plan_hash(config: RunConfig) -> str:
        return compute_plan(
            manifest_path=EXAMPLE_MANIFEST, state=None, execution=execution_identity(config)
        ).plan.plan_hash

    first = plan_hash(base)
    assert plan_hash(replace(base)) == first
    for other in (
        replace(base, adapter_options={"collection": "evil-collection"}),
        replace(base, adapter_options={"collection": "@wiforge/averos", "registry": "x"}),
        replace(base, adapter="mock"),
        replace(base, workspace_root=tmp_path / "elsewhere"),
        replace(base, listeners=("pkg:listener",)),
        replace(base, development=True),
    ):
        assert plan_hash(other) != first, other
    assert plan_hash(replace(base, max_attempts=3, concurrency=2, timeout_ms=5)) == first
    mock = replace(base, adapter="mock", adapter_options={})
    assert plan_hash(replace(mock, adapter_options={"failNodes": ["x"]})) == plan_hash(mock)
