"""Issue 3: the five buckets of the semantic diff, per element kind."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from averos_ci.plan import Bucket
from tests.plan.plan_samples import actions, applied, example_raw, golden_raw, plan_of

Raw = dict[str, Any]


def _entity(raw: Raw, name: str) -> Raw:
    return next(e for e in raw["entities"] if e["name"] == name)


def _member(raw: Raw, entity: str, name: str) -> Raw:
    return next(
        m for m in _entity(raw, entity)["members"] if name in (m.get("mname"), m.get("memberName"))
    )


def _named(items: list[Raw], name: str, key: str = "name") -> Raw:
    return next(i for i in items if i[key] == name)


def _with_tag_entity(raw: Raw) -> Raw:
    """The example plus an entity nothing refers to (so it can be removed or renamed)."""
    raw = copy.deepcopy(raw)
    raw["entities"].append(
        {
            "name": "Tag",
            "members": [
                {"memberNature": "simple", "ename": "Tag", "mname": "label", "memberType": "string"}
            ],
        }
    )
    return raw


def _translation(raw: Raw) -> None:
    fr = _named(raw["languages"], "fr", "languageCode")
    _named(fr["translationEntries"], "todotask.status", "localeID")["localeValue"] = "État"


def _service_port(raw: Raw) -> None:
    _named(raw["serviceConfigurations"], "ToDoTaskServiceConfiguration")["apiPort"] = 4444


def _member_type(raw: Raw) -> None:
    _member(raw, "ToDoTask", "dueDate")["memberType"] = "string"


def _enum_values(raw: Raw) -> None:
    _member(raw, "ToDoTask", "status")["listOfEnumValues"] = "New,Active,Closed,Archived"


def _relation(raw: Raw) -> None:
    _member(raw, "ToDoArea", "toDoTasks")["deleteStrategy"] = "KEEP_CHILDREN"


def _entity_sname(raw: Raw) -> None:
    _entity(raw, "ToDoTask")["sname"] = "ToDoAreaService"


def _use_case_type(raw: Raw) -> None:
    _named(raw["useCases"], "SearchToDoTask")["useCaseType"] = "CRUD"


def _page(raw: Raw) -> None:
    _named(raw["blankPages"], "AboutPage")["targetMenu"] = "top"


def _mapping(raw: Raw) -> None:
    _named(raw["fieldMappings"], "ToDoTaskMapping")["mapping"][0]["mapTo"] = "id"


def _description(raw: Raw) -> None:
    raw["description"] = "Another description"


def _app_name(raw: Raw) -> None:
    raw["applicationName"] = "ToDoApplication"


def _auth(raw: Raw) -> None:
    _named(raw["authentication"], "DummyAuthProvider")["config"][0]["value"] = "250"


def _http_auth(raw: Raw) -> None:
    raw["httpAuthConfig"]["tokenPrefix"] = "Token"


# (mutation, base, bucket, node id, changed fields, node action)
CHANGES: list[tuple[Callable[[Raw], None], Callable[[], Raw], Bucket, str, tuple[str, ...], str]]
CHANGES = [
    (
        _translation,
        example_raw,
        Bucket.TO_UPDATE,
        "translation-entry:fr:todotask.status",
        ("value",),
        "update",
    ),
    (
        _service_port,
        example_raw,
        Bucket.TO_UPDATE,
        "service-config:ToDoTaskServiceConfiguration",
        ("apiPort",),
        "update",
    ),
    (_mapping, example_raw, Bucket.TO_UPDATE, "mapping:ToDoTaskMapping", ("mapping",), "update"),
    (
        _description,
        example_raw,
        Bucket.TO_UPDATE,
        "application:ToDoApp",
        ("description",),
        "update",
    ),
    (_auth, golden_raw, Bucket.TO_UPDATE, "auth:DummyAuthProvider", ("config",), "update"),
    (_http_auth, golden_raw, Bucket.TO_UPDATE, "auth:http-auth-config", ("tokenPrefix",), "update"),
    (
        _member_type,
        example_raw,
        Bucket.TO_UPDATE,
        "simple-field:ToDoTask:dueDate",
        ("memberType",),
        "update",
    ),
    (
        _enum_values,
        example_raw,
        Bucket.TO_UPDATE,
        "simple-field:ToDoTask:status",
        ("listOfEnumValues",),
        "update",
    ),
    (
        _relation,
        example_raw,
        Bucket.TO_UPDATE,
        "composite-field:ToDoArea:toDoTasks",
        ("deleteStrategy",),
        "update",
    ),
    (_entity_sname, example_raw, Bucket.TO_UPDATE, "entity:ToDoTask", ("sname",), "update"),
    (
        _use_case_type,
        example_raw,
        Bucket.TO_UPDATE,
        "use-case:SearchToDoTask",
        ("command",),
        "update",
    ),
    (_page, example_raw, Bucket.TO_UPDATE, "page:AboutPage", ("targetMenu",), "update"),
    (
        _app_name,
        example_raw,
        Bucket.TO_UPDATE,
        "application:ToDoApplication",
        ("applicationName",),
        "update",
    ),
]


REPLACEMENTS = {
    _member_type,
    _enum_values,
    _relation,
    _entity_sname,
    _use_case_type,
    _page,
    _app_name,
}


@pytest.mark.parametrize(
    ("mutate", "base", "bucket", "node_id", "fields", "action"),
    [pytest.param(*c, id=c[0].__name__.strip("_")) for c in CHANGES],
)
def test_one_change_lands_in_one_bucket(
    mutate: Callable[[Raw], None],
    base: Callable[[], Raw],
    bucket: Bucket,
    node_id: str,
    fields: tuple[str, ...],
    action: str,
) -> None:
    old = base()
    new = copy.deepcopy(old)
    mutate(new)
    plan = plan_of(new, applied(old))
    buckets = {
        Bucket.TO_ADD: plan.diff.to_add,
        Bucket.TO_UPDATE: plan.diff.to_update,
        Bucket.CONFLICTS: plan.diff.conflicts,
        Bucket.TO_REMOVE: plan.diff.to_remove,
    }
    for b, changes in buckets.items():
        expected = [node_id] if b is bucket else []
        assert [c.id for c in changes] == expected, b
    [change] = buckets[bucket]
    assert change.bucket is bucket
    assert change.fields == fields
    assert change.renamed_from is None
    got = actions(plan)
    assert got[node_id] == action
    assert {k: v for k, v in got.items() if k != node_id} == dict.fromkeys(
        (k for k in got if k != node_id), "skip"
    )
    assert node_id not in plan.diff.unchanged
    assert len(plan.diff.unchanged) == len(plan.nodes) - 1
    assert plan.applicable  # issue 21: no semantic change is a conflict any more
    if mutate in REPLACEMENTS:  # once "cannot change after creation": now a replacement (-/+)
        assert change.reason and change.reason.startswith("forces replacement")
        assert fields[0] in change.reason
    else:
        assert change.reason is None


def test_removed_entity_is_destroyed_and_gets_no_node() -> None:
    old = _with_tag_entity(example_raw())
    plan = plan_of(example_raw(), applied(old))
    assert [(c.id, c.kind) for c in plan.diff.to_remove] == [
        ("entity:Tag", "entity"),
        ("simple-field:Tag:label", "simple-member"),
    ]
    assert all(c.reason and c.reason.startswith("destroy") for c in plan.diff.to_remove)
    ids = {n.id for n in plan.nodes}
    assert "entity:Tag" not in ids and "simple-field:Tag:label" not in ids
    assert plan.counts.remove == 2
    assert plan.has_changes  # a pending removal is a change (issue 21)
    assert plan.applicable


def test_removed_translation_and_use_case_are_destroyed() -> None:
    old = example_raw()
    new = copy.deepcopy(old)
    new["useCases"] = [u for u in new["useCases"] if u["name"] != "SearchToDoTask"]
    new["languages"] = [lang for lang in new["languages"] if lang["languageCode"] != "fr"]
    plan = plan_of(new, applied(old))
    removed = [c.id for c in plan.diff.to_remove]
    assert "use-case:SearchToDoTask" in removed
    assert "translation:fr" in removed
    assert "translation-entry:fr:todotask.status" in removed
    assert len(removed) == 1 + 1 + 6
    assert plan.has_changes


def test_entity_rename_is_an_update_not_a_removal() -> None:
    old = _with_tag_entity(example_raw())
    new = copy.deepcopy(old)
    tag = _entity(new, "Tag")
    tag.update(name="Label", renamedFrom="Tag")
    tag["members"][0]["ename"] = "Label"
    plan = plan_of(new, applied(old))
    assert plan.diff.to_remove == ()
    renamed = {c.id: c.renamed_from for c in plan.diff.to_update}
    assert renamed == {
        "entity:Label": "entity:Tag",
        "simple-field:Label:label": "simple-field:Tag:label",
    }
    assert all(c.bucket is Bucket.TO_UPDATE for c in plan.diff.to_update)
    assert plan.diff.to_add == () and plan.diff.conflicts == ()
    assert plan.applicable


def test_member_rename_is_an_update_not_a_removal() -> None:
    old = example_raw()
    new = copy.deepcopy(old)
    due = _member(new, "ToDoTask", "dueDate")
    due.update(mname="deadline", renamedFrom="dueDate")
    plan = plan_of(new, applied(old))
    assert plan.diff.to_remove == ()
    [change] = plan.diff.to_update
    assert (change.id, change.renamed_from) == (
        "simple-field:ToDoTask:deadline",
        "simple-field:ToDoTask:dueDate",
    )
    assert "simple-field:ToDoTask:deadline" not in {c.id for c in plan.diff.to_add}
    assert actions(plan)["simple-field:ToDoTask:deadline"] != "skip"


def test_renamed_member_with_a_changed_type_is_a_replacement() -> None:
    old = example_raw()
    new = copy.deepcopy(old)
    _member(new, "ToDoTask", "dueDate").update(
        mname="deadline", renamedFrom="dueDate", memberType="string"
    )
    plan = plan_of(new, applied(old))
    assert plan.diff.conflicts == ()
    [change] = plan.diff.to_update
    assert change.renamed_from == "simple-field:ToDoTask:dueDate"
    assert change.fields == ("memberType",) and "forces replacement" in (change.reason or "")
    assert plan.applicable


def test_every_element_kind_is_added_from_empty_state() -> None:
    plan = plan_of(golden_raw())
    assert {c.kind for c in plan.diff.to_add} == {
        "application",
        "entity",
        "simple-member",
        "composite-member",
        "field-mapping",
        "service-configuration",
        "use-case",
        "page",
        "authentication-provider",
        "http-auth-config",
        "language",
        "translation-entry",
    }
    assert all(c.bucket is Bucket.TO_ADD for c in plan.diff.to_add)
    assert len(plan.diff.to_add) == len(plan.nodes)
    assert plan.diff.unchanged == ()


def test_added_language_is_added_with_its_entries() -> None:
    old = example_raw()
    new = copy.deepcopy(old)
    new["languages"].append(
        {
            "languageCode": "de",
            "translationEntries": [{"localeID": "todotask.name", "localeValue": "Name"}],
        }
    )
    plan = plan_of(new, applied(old))
    assert [c.id for c in plan.diff.to_add] == [
        "translation-entry:de:todotask.name",
        "translation:de",
    ]
    node = plan.node("translation-entry:de:todotask.name")
    assert node.depends_on == ("translation:de",)
    order = [n.id for n in plan.nodes]
    assert order.index("translation:de") < order.index("translation-entry:de:todotask.name")


def test_replacements_are_not_counted_as_unchanged() -> None:
    old = example_raw()
    new = copy.deepcopy(old)
    _member_type(new)
    plan = plan_of(new, applied(old))
    assert plan.counts.conflicts == 0 and plan.counts.update == 1
    assert plan.counts.skip == len(plan.diff.unchanged) == len(plan.nodes) - 1
