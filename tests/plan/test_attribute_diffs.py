"""Issue 14: every diff entry carries its attribute changes, and they are complete.

Law: applying each entry's ``after`` values to the base manifest's element reproduces the head
manifest's element, and its ``before`` values are the base's — for random manifest pairs.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from averos_ci.plan import ExecutionPlan
from averos_ci.plan.elements import Element, elements
from averos_ci.plan.model import AttrOp, Change
from averos_ci.plan.render import render_markdown, render_text
from tests.plan.manifest_strategies import PLAIN_TYPES, manifests
from tests.plan.plan_samples import applied, example_raw, normalized, plan_of
from tests.plan.test_diff_buckets import _entity, _member, _with_tag_entity

SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def edited(draw: st.DrawFn) -> tuple[dict[str, Any], dict[str, Any]]:
    """A manifest and an edit of it: ports, texts, member types, pages, provider config."""
    old = draw(manifests())
    new = copy.deepcopy(old)
    for sc in new["serviceConfigurations"]:
        if draw(st.booleans()):
            sc["apiPort"] = draw(st.integers(1, 65535))
    for lang in new["languages"]:
        for entry in lang["translationEntries"]:
            if draw(st.booleans()):
                entry["localeValue"] = draw(st.text(max_size=12))
    for entity in new["entities"]:
        for m in entity["members"]:
            if m["memberNature"] == "simple" and "memberTag" not in m and draw(st.booleans()):
                m["memberType"] = draw(st.sampled_from(PLAIN_TYPES))
                m.pop("listOfEnumValues", None)
        if draw(st.booleans()):
            entity["members"].append(
                {
                    "memberNature": "simple",
                    "ename": entity["name"],
                    "mname": "addedLater",
                    "memberType": draw(st.sampled_from(PLAIN_TYPES)),
                }
            )
    for page in new["blankPages"]:
        page["targetMenu"] = draw(st.sampled_from(["side", "top", "both"]))
    for provider in new.get("authentication", []):
        for entry in provider["config"]:
            if draw(st.booleans()):
                entry["value"] = draw(st.text(max_size=6))
    if draw(st.booleans()):
        new["blankPages"] = []
    return old, new


def _by_id(raw: dict[str, Any]) -> dict[str, Element]:
    return {e.id: e for e in elements(normalized(raw)).values()}


def _state(e: Element) -> dict[str, Any]:
    return {"command": e.command, **e.args}


def _apply(base: dict[str, Any], change: Change) -> dict[str, Any]:
    out = dict(base)
    for a in change.attributes:
        if a.op is AttrOp.ADD:
            assert a.field not in base, (change.id, a.field)
            out[a.field] = a.after
        else:
            assert base[a.field] == a.before, (change.id, a.field, "before is the base's")
            if a.op is AttrOp.UPDATE:
                out[a.field] = a.after
            else:
                del out[a.field]
    return out


def check_attribute_law(old_raw: dict[str, Any], new_raw: dict[str, Any]) -> ExecutionPlan:
    old, new = _by_id(old_raw), _by_id(new_raw)
    plan = plan_of(new_raw, applied(old_raw))
    seen: set[str] = set()
    for change in plan.diff.to_add:
        assert all(a.op is AttrOp.ADD for a in change.attributes)
        assert _apply({}, change) == new[change.id].args
        seen.add(change.id)
    for change in (*plan.diff.to_update, *plan.diff.conflicts):
        base = old[change.renamed_from or change.id]
        assert change.attributes, change.id
        assert _apply(_state(base), change) == _state(new[change.id])
        seen.add(change.id)
    for change in plan.diff.to_remove:
        assert all(a.op is AttrOp.REMOVE for a in change.attributes)
        assert {a.field: a.before for a in change.attributes} == old[change.id].args
        assert change.id not in new
    for node_id in plan.diff.unchanged:
        assert _state(old[node_id]) == _state(new[node_id])
        seen.add(node_id)
    assert seen == set(new), "every head element is accounted for"
    return plan


@SETTINGS
@given(pair=edited())
def test_after_values_rebuild_the_head_from_an_edit(pair: tuple[dict[str, Any], ...]) -> None:
    check_attribute_law(*pair)


@SETTINGS
@given(old=manifests(), new=manifests())
def test_after_values_rebuild_the_head_from_any_base(
    old: dict[str, Any], new: dict[str, Any]
) -> None:
    check_attribute_law(old, new)


def test_renames_carry_their_old_names() -> None:
    old = _with_tag_entity(example_raw())
    new = copy.deepcopy(old)
    tag = _entity(new, "Tag")
    tag.update(name="Label", renamedFrom="Tag")
    tag["members"][0]["ename"] = "Label"
    due = _member(new, "ToDoTask", "dueDate")
    due.update(mname="deadline", renamedFrom="dueDate")
    plan = check_attribute_law(old, new)
    attrs = {
        c.id: {(a.field, a.before, a.after) for a in c.attributes} for c in plan.diff.to_update
    }
    assert attrs["entity:Label"] == {("name", "Tag", "Label")}
    assert attrs["simple-field:ToDoTask:deadline"] == {("mname", "dueDate", "deadline")}
    text = render_text(plan)
    assert "> entity:Tag → entity:Label (renamed)  [averos-entity]" in text
    assert "    > dueDate → deadline (renamed)  [add-simple-member]" in text
    assert "`>` dueDate → deadline (renamed)" in render_markdown(plan)


SECRET = "s3cr3t-value-never-shown"


def test_provider_config_is_sensitive_in_every_rendering() -> None:
    old = example_raw()
    old.update(enableAuthentication=True, defaultAuthenticationProvider="keycloak")
    old["authentication"] = [
        {
            "name": "KeycloakAuthProvider",
            "providerType": "keycloak",
            "config": [{"key": "clientSecret", "value": "old-" + SECRET}],
        }
    ]
    new = copy.deepcopy(old)
    new["authentication"][0]["config"] = [
        {"key": "clientSecret", "value": SECRET},
        {"key": "realm", "value": "library"},
    ]
    for plan in (plan_of(new), plan_of(new, applied(old))):
        [change] = [
            c for c in (*plan.diff.to_add, *plan.diff.to_update) if c.id.startswith("auth:")
        ]
        [config] = [a for a in change.attributes if a.field == "config"]
        assert config.sensitive
        assert json.loads(plan.to_json())  # marked in the plan JSON (see README)
        for text in (render_text(plan), render_markdown(plan)):
            assert SECRET not in text
            assert "config: (sensitive)" in text
    text = render_text(plan_of(new, applied(old)))
    assert "~ config: (sensitive) → (sensitive) (entries changed: clientSecret, realm)" in text


def test_plan_json_with_attributes_validates_and_round_trips() -> None:
    """The planner writes the diff by hand (speed): it must equal the models' own wire form."""
    import jsonschema

    from averos_ci._model import WireModel
    from averos_ci.schemas import HERE
    from tests.plan.test_golden_renderings import todo_plan

    plan = todo_plan()
    assert plan.diff.to_update and plan.diff.to_remove
    assert any(c.reason for c in plan.diff.to_update)  # a replacement (once a conflict)
    doc = json.loads(plan.to_json())
    assert doc["formatVersion"] == 2
    jsonschema.validate(doc, json.loads((HERE / "plan.schema.json").read_text(encoding="utf-8")))
    again = ExecutionPlan.model_validate(doc)
    assert WireModel.to_wire(again) == doc  # pydantic's dump of the parsed plan, key for key
    assert again.diff == plan.diff
    update = next(c for c in doc["diff"]["toUpdate"] if c["id"].startswith("service-config:"))
    assert update["attributes"] == [
        {"field": "apiPort", "op": "update", "before": 3330, "after": 3332}
    ]
    removal = next(c for c in doc["diff"]["toRemove"])
    assert all(set(a) == {"field", "op", "before"} for a in removal["attributes"])
    auth = next(c for c in doc["diff"]["toUpdate"] if c["id"] == "auth:DummyAuthProvider")
    assert auth["attributes"][0]["sensitive"] is True


def test_an_attribute_added_to_an_existing_element_is_rendered_as_added() -> None:
    old = example_raw()
    new = copy.deepcopy(old)
    _member(new, "ToDoArea", "description").update(memberType="string", memberTag="BusinessID")
    _member(new, "ToDoArea", "title").pop("memberTag")  # one BusinessID per entity
    plan = check_attribute_law(old, new)
    updates = {c.id: c for c in plan.diff.to_update}
    title = updates["simple-field:ToDoArea:title"]
    assert [(a.field, a.op) for a in title.attributes] == [("memberTag", AttrOp.REMOVE)]
    text = render_text(plan)
    assert "    -/+ title  (forces replacement: memberTag cannot be updated in place)" in text
    assert '        - memberTag: "BusinessID"\n' in text
    assert '        + memberTag: "BusinessID"\n' in text  # on description
    assert '        ~ memberType: "textarea" → "string"\n' in text
