"""Settings the adapter cannot apply are in the plan before approval: text, markdown, JSON.

The prediction is the adapter's (``angular-schematics``: its ``not_applied(node)``); an
adapter without the method (``mock``) predicts nothing. A saved JSON plan that carries the
warnings is still a plan ``run --plan`` accepts.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from averos_ci.plan.model import ExecutionPlan
from averos_ci.plan.not_applied import not_applied
from averos_ci.plan.render import render_json, render_markdown, render_text
from averos_ci.planning.saved_plan import load_saved_plan
from tests.plan.plan_samples import applied, example_raw, flagged_raw, plan_of
from tests.test_schemas import jsonschema  # a test extra; unavailable() when missing

ANGULAR = {"adapter": "angular-schematics", "adapterOptions": {"templateCache": True}}
MOCK = {"adapter": "mock", "adapterOptions": {}}
SCHEMAS = Path(__file__).resolve().parents[2] / "averos_ci" / "schemas"


def _plan(raw: dict[str, Any], execution: dict[str, Any], base: Any = None) -> ExecutionPlan:
    return plan_of(raw, base, execution=execution)


def test_every_setting_of_the_example_is_applied() -> None:
    """Issue 41: the ToDo example's memberTag, deleteStrategy, fieldMappings, description,
    enableExternalEntityMapping and defaultAuthenticationProvider all take effect."""
    plan = _plan(example_raw(), ANGULAR)
    assert not_applied(plan) == ()
    assert "will NOT be applied" not in render_text(plan)
    assert "notApplied" not in json.loads(render_json(plan))


def test_the_plan_lists_what_will_not_be_applied() -> None:
    plan = _plan(flagged_raw(), ANGULAR)
    found = {(n.node_id, n.setting) for n in not_applied(plan)}
    assert found == {
        ("application:ToDoApp", "defaultAuthenticationProvider"),
        ("auth:http-auth-config", "unauthorizedRedirect"),
    }
    # applied by the adapter now: not flagged
    assert ("simple-field:ToDoTask:taskId", "memberTag") not in found

    text = render_text(plan)
    assert "Warning: 2 setting(s) will NOT be applied" in text
    flagged = "! application:ToDoApp: defaultAuthenticationProvider: enableAuthentication is false"
    assert flagged in text

    markdown = render_markdown(plan)
    assert "setting(s) will not be applied" in markdown
    assert "auth:http-auth-config — **unauthorizedRedirect**" in markdown

    wire = json.loads(render_json(plan))["notApplied"]
    assert {"nodeId", "setting", "reason"} == set(wire[0])
    assert {(w["nodeId"], w["setting"]) for w in wire} == found


def test_an_adapter_without_the_method_predicts_nothing() -> None:
    plan = _plan(flagged_raw(), MOCK)
    assert not_applied(plan) == ()
    assert "notApplied" not in json.loads(render_json(plan))
    assert "will NOT be applied" not in render_text(plan)
    assert "will not be applied" not in render_markdown(plan)


def test_only_the_nodes_the_plan_executes_are_flagged() -> None:
    base = flagged_raw()
    new = copy.deepcopy(base)
    new["description"] = "another description"
    plan = _plan(new, ANGULAR, applied(base))
    assert [(n.node_id, n.setting) for n in not_applied(plan)] == [
        ("application:ToDoApp", "defaultAuthenticationProvider"),
    ]
    unchanged = _plan(base, ANGULAR, applied(base))
    assert not_applied(unchanged) == ()


def test_a_saved_plan_with_warnings_loads(tmp_path: Path) -> None:
    plan = _plan(flagged_raw(), ANGULAR)
    saved = tmp_path / "plan.json"
    saved.write_text(render_json(plan), encoding="utf-8")
    assert "notApplied" in saved.read_text(encoding="utf-8")
    assert load_saved_plan(saved).plan_hash == plan.plan_hash


def test_the_json_plan_with_warnings_matches_the_plan_schema() -> None:
    schema = json.loads((SCHEMAS / "plan.schema.json").read_text(encoding="utf-8"))
    document = json.loads(render_json(_plan(flagged_raw(), ANGULAR)))
    assert document["notApplied"]
    jsonschema.validate(document, schema)
