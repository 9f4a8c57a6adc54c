"""Issue 25: the planner encodes each node and diff entry once, for the planHash and for the
JSON rendering; both must be what encoding the plan's wire from scratch gives."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from averos_ci.plan import ExecutionPlan, canonical_json
from averos_ci.plan.canonical import carried, compact, item_json, sha256_json
from averos_ci.plan.patch import CodePatch, with_patch
from averos_ci.plan.render import render_json
from tests.plan.manifest_strategies import manifests
from tests.plan.plan_samples import applied, golden_raw, plan_of
from tests.plan.test_golden_renderings import older_todo

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
# masks entity args: node items (args) and diff items (attributes) are replaced when rendered
RULES = st.sampled_from([[], ["entity:*/sname"], ["*/ename"]])


def _uncached(plan: ExecutionPlan) -> ExecutionPlan:
    """The same plan, read back from its JSON: no encodings kept from planning."""
    again = ExecutionPlan.model_validate(json.loads(json.dumps(plan.to_wire())))
    assert not again.item_json()
    return again


def _check(plan: ExecutionPlan) -> None:
    assert plan.item_json(), "the planner keeps its encodings"
    body = {k: v for k, v in plan.to_wire().items() if k != "planHash"}
    assert plan.plan_hash == hashlib.sha256(canonical_json(body).encode()).hexdigest()
    assert render_json(plan) == render_json(_uncached(plan))


@SETTINGS
@given(new=manifests(), old=st.none() | manifests(), sensitive=RULES)
def test_plan_hash_and_json_equal_a_fresh_encoding(
    new: dict[str, Any], old: dict[str, Any] | None, sensitive: list[str]
) -> None:
    state = applied(old) if old is not None else None
    _check(plan_of(new, state, execution={"adapter": "mock", "sensitive": sensitive}))


def test_masked_items_are_encoded_anew() -> None:
    head = golden_raw()  # its providers' config is sensitive: masked nodes and diff entries
    plan = plan_of(head, applied(older_todo(head)), execution={"adapter": "mock"})
    _check(plan)
    assert '"(sensitive)"' in render_json(plan)


def test_carried_keeps_the_texts_of_the_very_same_items() -> None:
    kept, replaced = {"id": "a"}, {"id": "b"}
    before: dict[str, Any] = {"nodes": [kept, replaced], "other": [1]}
    items = item_json(before["nodes"])
    after = {"nodes": [kept, {"id": "b", "masked": True}], "other": [1]}
    assert carried(items, before, after) == {id(after["nodes"]): [compact(kept), None]}
    assert carried(items, before, {"nodes": [kept]}) == {}  # not a copy: nothing carried


def test_sha256_json_uses_the_texts_it_is_given() -> None:
    wire: dict[str, Any] = {"b": [{"y": 1, "x": [2, 3]}] * 600, "a": {"c": [{"é": None}]}}
    plain = hashlib.sha256(canonical_json(wire).encode()).hexdigest()
    assert sha256_json(wire) == plain
    assert sha256_json(wire, items=item_json(wire["b"], wire["a"]["c"])) == plain
    assert sha256_json(wire, items={id(wire["b"]): ["0"] * 600}) != plain  # texts are used


def test_a_plan_with_its_code_change_renders_as_json() -> None:
    """``with_patch`` makes a new wire: the JSON is encoded from it (regression: the plan
    carrying a code change raised AttributeError on ``--format json``)."""
    plan = with_patch(plan_of(golden_raw()), CodePatch(generator_failed="the generator failed"))
    assert not plan.item_json()
    assert render_json(plan) == render_json(_uncached(plan))
    assert json.loads(render_json(plan))["codePatch"] == plan.to_wire()["codePatch"]
