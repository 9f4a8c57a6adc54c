"""Counts that say what the plan does (issue 38 item 5): a replacement is counted as one, a
rename as one — never as an update or a creation — in the text, the markdown and the JSON
(``summary``, beside the plan: ``counts`` and the planHash are unchanged)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from averos_ci.plan.items import change_counts
from averos_ci.plan.render import render_json, render_markdown, render_text
from averos_ci.schemas import generated
from tests.execute.regen.regen_project import Project, library
from tests.plan.manifest_strategies import manifests
from tests.plan.plan_samples import applied, example_raw, plan_of
from tests.plan.test_diff_buckets import _entity, _member, _with_tag_entity
from tests.test_schemas import jsonschema  # a test extra; unavailable() when missing

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _table(markdown: str) -> dict[str, int]:
    """The markdown plan's counts table, column by column."""
    lines = markdown.splitlines()
    i = next(n for n, line in enumerate(lines) if line.startswith("| create |"))
    names = [c.strip() for c in lines[i].strip("|").split("|")]
    return dict(zip(names, (int(c) for c in lines[i + 2].strip("|").split("|")), strict=True))


def _one_of_each() -> tuple[dict[str, Any], dict[str, Any]]:
    """One member created, one replaced (its type), one renamed: nothing updated in place."""
    old = example_raw()
    new = copy.deepcopy(old)
    _member(new, "ToDoTask", "dueDate").update(memberType="string")  # forces replacement
    _member(new, "ToDoTask", "completed").update(mname="done", renamedFrom="completed")
    task = _entity(new, "ToDoTask")
    task["members"].append({**task["members"][-1], "mname": "priority", "memberType": "number"})
    task["members"][-1].pop("renamedFrom", None)
    return old, new


def test_a_replacement_and_a_rename_are_counted_as_such_in_every_rendering() -> None:
    old, new = _one_of_each()
    plan = plan_of(new, applied(old))
    assert (plan.counts.create, plan.counts.update) == (2, 1)  # the nodes, by action: as before

    text = render_text(plan)
    assert (
        "Plan: 1 to create, 0 to update, 1 to replace, 1 to rename, 31 unchanged, "
        "0 conflict(s), 0 to destroy."
    ) in text
    assert "    + priority: number  [add-simple-member]" in text
    assert "    -/+ dueDate  (forces replacement: memberType" in text
    assert "    > completed → done (renamed)  [add-simple-member]" in text

    markdown = render_markdown(plan)
    assert _table(markdown) == {
        "create": 1,
        "update": 0,
        "replace": 1,
        "rename": 1,
        "unchanged": 31,
        "conflicts": 0,
        "removals": 0,
    }
    assert "<summary>entity (1 create, 1 replace, 1 rename)</summary>" in markdown

    wire = json.loads(render_json(plan))
    assert wire["summary"] == {
        "create": 1,
        "update": 0,
        "replace": 1,
        "rename": 1,
        "delete": 0,
        "unchanged": 31,
        "conflicts": 0,
    }
    assert wire["counts"] == plan.counts.to_wire()  # existing readers see what they saw
    jsonschema.validate(wire, generated()["plan.schema.json"])


def test_a_renamed_entity_is_renamed_with_its_members_never_created() -> None:
    old = _with_tag_entity(example_raw())
    new = copy.deepcopy(old)
    tag = _entity(new, "Tag")
    tag.update(name="Label", renamedFrom="Tag")
    for member in tag["members"]:
        member["ename"] = "Label"
    plan = plan_of(new, applied(old))
    members = len(tag["members"])
    text = render_text(plan)
    assert f"Plan: 0 to create, 0 to update, {1 + members} to rename, " in text, text
    assert "> entity:Tag → entity:Label (renamed)  [averos-entity]" in text
    assert "\n    + " not in text  # no member shown as created
    assert _table(render_markdown(plan))["rename"] == 1 + members


def test_a_plan_without_renames_or_replacements_keeps_its_counts_line() -> None:
    """The line scripts and docs quote is unchanged when there is nothing to replace or rename."""
    plan = plan_of(example_raw())
    assert "Plan: 33 to create, 0 to update, 0 unchanged, 0 conflict(s), 0 to destroy." in (
        render_text(plan)
    )


@SETTINGS
@given(old=manifests(), new=manifests())
def test_each_change_is_counted_once(old: dict[str, Any], new: dict[str, Any]) -> None:
    """Law: the shown counts split the nodes that run and count every diff entry once."""
    plan = plan_of(new, applied(old))
    c = change_counts(plan)
    assert c.create + c.update + c.replace + c.rename == plan.counts.create + plan.counts.update
    assert c.update + c.replace + c.rename == len(plan.diff.to_update)
    assert (c.delete, c.unchanged, c.conflicts) == (
        plan.counts.remove,
        plan.counts.skip,
        plan.counts.conflicts,
    )


def test_the_json_summary_counts_the_code_change_files_by_status(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A removal with a regenerating adapter: its elements and its files, each counted once."""
    project = Project(tmp_path / "p", library())
    assert project.cli("run") == 0
    project.write(library(shelf=False))
    capsys.readouterr()
    assert project.cli("plan", "--format", "json") == 0
    wire = json.loads(capsys.readouterr().out)
    summary = wire["summary"]
    assert summary["delete"] == len(wire["diff"]["toRemove"]) > 0
    assert summary["files"] == {
        "created": 0,
        "changed": 4,
        "renamed": 0,
        "deleted": 2,
        "kept": 0,
        "conflicts": 0,
        "added": 0,
        "removed": 10,
    }
    jsonschema.validate(wire, generated()["plan.schema.json"])
