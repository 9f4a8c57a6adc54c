"""Issue 3: laws of the diff and the plan, over generated manifests and the real ones."""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from averos_ci.plan.render import render_json
from tests.plan.manifest_strategies import MEMBER_POOL, manifests, shuffled
from tests.plan.plan_samples import actions, applied, example_raw, golden_raw, plan_of

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
REAL = [pytest.param(example_raw, id="todoapp"), pytest.param(golden_raw, id="averos-golden")]


@SETTINGS
@given(raw=manifests())
def test_planning_against_own_state_is_all_skip(raw: dict[str, Any]) -> None:
    plan = plan_of(raw, applied(raw))
    assert set(actions(plan).values()) == {"skip"}
    assert not plan.has_changes
    assert plan.executable_nodes() == []
    assert plan.applicable
    assert plan.diff.to_add == plan.diff.to_update == plan.diff.conflicts == ()
    assert plan.diff.to_remove == ()
    assert sorted(plan.diff.unchanged) == sorted(actions(plan))


@pytest.mark.parametrize("raw", REAL)
def test_real_manifest_against_own_state_is_all_skip(raw: Any) -> None:
    manifest = raw()
    plan = plan_of(manifest, applied(manifest))
    assert set(actions(plan).values()) == {"skip"}
    assert plan.counts.skip == len(plan.nodes) > 0


@SETTINGS
@given(raw=manifests(), seed=st.integers(0, 2**32 - 1), with_state=st.booleans())
def test_plan_is_invariant_under_reordering(
    raw: dict[str, Any], seed: int, with_state: bool
) -> None:
    state = applied(raw) if with_state else None
    a = plan_of(raw, state)
    b = plan_of(shuffled(raw, random.Random(seed)), state)
    assert a.plan_hash == b.plan_hash
    assert render_json(a) == render_json(b)


@pytest.mark.parametrize("raw", REAL)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_real_plan_is_invariant_under_reordering(raw: Any, seed: int) -> None:
    manifest = raw()
    reordered = shuffled(manifest, random.Random(seed))
    assert reordered != manifest or seed == 0  # the shuffle really moved something
    assert render_json(plan_of(manifest)) == render_json(plan_of(reordered))


def _check_dependencies(raw: dict[str, Any], state: Any) -> None:
    plan = plan_of(raw, state)
    position = {n.id: i for i, n in enumerate(plan.nodes)}
    assert len(position) == len(plan.nodes), "node ids are unique"
    for i, node in enumerate(plan.nodes):
        for dep in node.depends_on:
            assert dep in position, f"{node.id} depends on missing {dep}"
            assert position[dep] < i, f"{node.id} comes before its dependency {dep}"
        # phases never run backwards
        if i:
            assert plan.nodes[i - 1].phase.rank <= node.phase.rank


@SETTINGS
@given(raw=manifests(), old=manifests())
def test_dependencies_exist_and_come_first(raw: dict[str, Any], old: dict[str, Any]) -> None:
    _check_dependencies(raw, None)
    _check_dependencies(raw, applied(old))


@pytest.mark.parametrize("raw", REAL)
def test_real_dependencies_exist_and_come_first(raw: Any) -> None:
    _check_dependencies(raw(), None)


def test_adding_a_simple_member_creates_only_that_field() -> None:
    base = example_raw()
    new = copy.deepcopy(base)
    task = next(e for e in new["entities"] if e["name"] == "ToDoTask")
    task["members"].append(
        {"memberNature": "simple", "ename": "ToDoTask", "mname": "priority", "memberType": "number"}
    )
    before = plan_of(base)
    plan = plan_of(new, applied(base))
    got = actions(plan)
    assert {k: v for k, v in got.items() if v != "skip"} == {
        "simple-field:ToDoTask:priority": "create"
    }
    # Everything that existed is untouched, including what depends on ToDoTask's fields:
    for node_id in (
        "application:ToDoApp",
        "entity:ToDoTask",
        "simple-field:ToDoTask:status",
        "use-case:CreateToDoTask",
        "use-case:SearchToDoTask",
        "mapping:ToDoTaskMapping",
        "service-config:ToDoTaskServiceConfiguration",
        "translation-entry:en:todotask.status",
    ):
        assert got[node_id] == "skip", node_id
    assert set(got) == {n.id for n in before.nodes} | {"simple-field:ToDoTask:priority"}
    assert [c.id for c in plan.diff.to_add] == ["simple-field:ToDoTask:priority"]
    assert plan.diff.to_update == plan.diff.conflicts == plan.diff.to_remove == ()
    node = plan.node("simple-field:ToDoTask:priority")
    assert node.args == {"ename": "ToDoTask", "mname": "priority", "memberType": "number"}
    assert node.depends_on == ("entity:ToDoTask",)
    assert [n.id for n in plan.executable_nodes()] == ["simple-field:ToDoTask:priority"]


@SETTINGS
@given(raw=manifests(), data=st.data())
def test_adding_a_simple_member_anywhere_creates_only_that_field(
    raw: dict[str, Any], data: st.DataObject
) -> None:
    entity = data.draw(st.sampled_from(raw["entities"]))
    taken = {m.get("mname") or m.get("memberName") for m in entity["members"]}
    mname = data.draw(st.sampled_from([m for m in [*MEMBER_POOL, "extra"] if m not in taken]))
    new = copy.deepcopy(raw)
    target = next(e for e in new["entities"] if e["name"] == entity["name"])
    target["members"].insert(
        data.draw(st.integers(0, len(target["members"]))),
        {"memberNature": "simple", "ename": entity["name"], "mname": mname, "memberType": "string"},
    )
    got = actions(plan_of(new, applied(raw)))
    assert {k: v for k, v in got.items() if v != "skip"} == {
        f"simple-field:{entity['name']}:{mname}": "create"
    }


def test_changed_member_type_is_a_replacement_and_executable() -> None:
    base = example_raw()
    new = copy.deepcopy(base)
    task = next(e for e in new["entities"] if e["name"] == "ToDoTask")
    due = next(m for m in task["members"] if m.get("mname") == "dueDate")
    due["memberType"] = "string"
    plan = plan_of(new, applied(base))
    assert plan.diff.conflicts == ()  # issue 21: regenerated, not refused
    [change] = plan.diff.to_update
    assert change.id == "simple-field:ToDoTask:dueDate"
    assert "memberType" in change.fields
    assert change.reason and change.reason.startswith("forces replacement")
    assert plan.node(change.id).action.value == "update"
    assert plan.applicable is True
    assert plan.counts.conflicts == 0 and plan.counts.update == 1
    assert {k for k, v in actions(plan).items() if v != "skip"} == {change.id}


@SETTINGS
@given(raw=manifests(), data=st.data())
def test_any_member_type_change_is_a_replacement(raw: dict[str, Any], data: st.DataObject) -> None:
    simple = [
        (e["name"], m)
        for e in raw["entities"]
        for m in e["members"]
        if m["memberNature"] == "simple" and "memberTag" not in m
    ]
    assume(simple)  # counted by hypothesis (a silent return passed ~35% of examples unchecked)
    ename, member = data.draw(st.sampled_from(simple))
    new = copy.deepcopy(raw)
    target = next(
        m
        for e in new["entities"]
        if e["name"] == ename
        for m in e["members"]
        if m.get("mname") == member["mname"]
    )
    target["memberType"] = data.draw(
        st.sampled_from([t for t in ("string", "number", "date") if t != member["memberType"]])
    )
    target.pop("listOfEnumValues", None)
    plan = plan_of(new, applied(raw))
    node_id = f"simple-field:{ename}:{member['mname']}"
    assert plan.diff.conflicts == ()
    assert [c.id for c in plan.diff.to_update if c.reason] == [node_id]
    assert plan.applicable
    assert node_id in {n.id for n in plan.executable_nodes()}
