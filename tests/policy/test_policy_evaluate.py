"""Policy as a pure function: each rule with a violating (or requiring) and a passing case,
on real plans of the ToDo example."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from averos_ci.errors import ConfigError
from averos_ci.plan import ExecutionPlan
from averos_ci.policy import PermissionLevel, PolicySettings, evaluate_policy, load_policy
from tests.plan.plan_samples import applied, example_raw, flagged_raw, plan_of


def _changed(mutate: Any) -> ExecutionPlan:
    """Plan of the example after ``mutate`` against the example applied."""
    base = example_raw()
    new = copy.deepcopy(base)
    mutate(new)
    return plan_of(new, applied(base))


def _drop_use_case(raw: dict[str, Any]) -> None:
    raw["useCases"] = [u for u in raw["useCases"] if u["name"] != "SearchToDoTask"]


def _translate(raw: dict[str, Any]) -> None:
    fr = next(lang for lang in raw["languages"] if lang["languageCode"] == "fr")
    entry = next(e for e in fr["translationEntries"] if e["localeID"] == "todotask.status")
    entry["localeValue"] = "État"


def _add_page(raw: dict[str, Any]) -> None:
    raw["blankPages"].append({**raw["blankPages"][0], "name": "HelpPage"})


def policy(**values: Any) -> PolicySettings:
    return load_policy(values, config_path=None)


def test_forbid_removals() -> None:
    plan = _changed(_drop_use_case)
    result = evaluate_policy(plan, policy(forbidRemovals=True))
    assert not result.passed
    [v] = result.violations
    assert v.rule == "forbidRemovals" and v.elements == ("use-case:SearchToDoTask",)
    assert evaluate_policy(plan, policy(forbidRemovals=False)).passed
    assert evaluate_policy(_changed(_translate), policy(forbidRemovals=True)).passed


def test_max_nodes() -> None:
    first = plan_of(example_raw())  # 33 nodes to create
    n = len(first.executable_nodes())
    [v] = evaluate_policy(first, policy(maxNodes=n - 1)).violations
    assert v.rule == "maxNodes" and f"executes {n} nodes" in v.message
    assert evaluate_policy(first, policy(maxNodes=n)).passed


def test_required_approvals_is_a_requirement_not_a_violation() -> None:
    plan = _changed(_translate)
    result = evaluate_policy(plan, policy(requiredApprovals=2))
    assert result.passed and result.required_approvals == 2
    assert [r.rule for r in result.requirements] == ["requiredApprovals"]
    assert evaluate_policy(plan, policy()).required_approvals == 1
    # a plan without changes needs no approval at all
    unchanged = plan_of(example_raw(), applied(example_raw()))
    assert evaluate_policy(unchanged, policy(requiredApprovals=3)).requirements == ()


def test_updates_need_permission_for_updates_only() -> None:
    settings = policy(updatesNeedPermission="maintain")
    result = evaluate_policy(_changed(_translate), settings)
    assert result.required_permission is PermissionLevel.MAINTAIN
    [r] = result.requirements
    assert r.rule == "updatesNeedPermission"
    assert r.elements == ("translation-entry:fr:todotask.status",)
    added = evaluate_policy(_changed(_add_page), settings)
    assert added.requirements == () and added.required_permission is None


def test_renames_need_the_update_permission() -> None:
    def rename(raw: dict[str, Any]) -> None:
        task = next(e for e in raw["entities"] if e["name"] == "ToDoTask")
        due = next(m for m in task["members"] if m["mname"] == "dueDate")
        due.update(mname="deadline", renamedFrom="dueDate")

    plan = _changed(rename)
    result = evaluate_policy(plan, policy(updatesNeedPermission="admin"))
    assert result.required_permission is PermissionLevel.ADMIN
    assert result.requirements[0].elements == ("simple-field:ToDoTask:deadline",)
    # the old name is protected too: renaming it away needs the protection's level
    old = evaluate_policy(plan, policy(protectedElements=["simple-field:ToDoTask:dueDate"]))
    assert old.required_permission is PermissionLevel.MAINTAIN


def test_protected_elements_by_id_and_glob() -> None:
    plan = _changed(_drop_use_case)
    result = evaluate_policy(
        plan,
        policy(
            protectedElements=["use-case:Search*", {"match": "entity:*", "permission": "admin"}]
        ),
    )
    [r] = result.requirements  # no entity changed: the admin rule does not apply
    assert r.rule == "protectedElements" and r.elements == ("use-case:SearchToDoTask",)
    assert result.required_permission is PermissionLevel.MAINTAIN
    untouched = evaluate_policy(plan, policy(protectedElements=["use-case:ToDoAreaCRUD"]))
    assert untouched.requirements == ()


def test_highest_permission_wins_and_wire_shape() -> None:
    result = evaluate_policy(
        _changed(_translate),
        policy(
            updatesNeedPermission="maintain",
            protectedElements=[{"match": "translation-entry:fr:*", "permission": "admin"}],
            requiredApprovals=2,
        ),
    )
    wire = result.to_wire()
    assert wire["requiredPermission"] == "admin" and wire["requiredApprovals"] == 2
    assert wire["passed"] is True and len(wire["requirements"]) == 3  # type: ignore[arg-type]


def test_pure_same_inputs_same_result() -> None:
    plan, settings = _changed(_drop_use_case), policy(forbidRemovals=True, maxNodes=1)
    assert evaluate_policy(plan, settings) == evaluate_policy(plan, settings)


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"forbidRemoval": True}, "/policy/forbidRemoval: Extra inputs"),
        ({"requiredApprovals": 0}, "/policy/requiredApprovals: Input should be greater"),
        ({"updatesNeedPermission": "owner"}, "/policy/updatesNeedPermission: Input should be"),
        ({"maxNodes": "5"}, "/policy/maxNodes: Input should be a valid integer"),
        ({"protectedElements": [{"match": "x", "level": "admin"}]}, "/policy/protectedElements/0"),
    ],
)
def test_bad_settings_are_config_errors(raw: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError) as exc:
        load_policy(raw, config_path=None)
    assert message in str(exc.value) and exc.value.hint and exc.value.exit_code == 2


def test_forbid_not_applied() -> None:
    """The adapter's prediction (angular-schematics: settings 1.4.1 has no place for)."""
    angular = {"adapter": "angular-schematics", "adapterOptions": {"templateCache": True}}
    plan = plan_of(flagged_raw(), execution=angular)
    [v] = evaluate_policy(plan, policy(forbidNotApplied=True)).violations
    assert v.rule == "forbidNotApplied"
    assert set(v.elements) == {"application:ToDoApp", "auth:http-auth-config"}
    assert "application:ToDoApp: defaultAuthenticationProvider" in v.message
    assert evaluate_policy(plan, policy(forbidNotApplied=False)).passed
    # every setting of the example takes effect; an adapter that predicts nothing, or a plan
    # that executes nothing, passes
    assert evaluate_policy(
        plan_of(example_raw(), execution=angular), policy(forbidNotApplied=True)
    ).passed
    mock = plan_of(flagged_raw(), execution={"adapter": "mock", "adapterOptions": {}})
    assert evaluate_policy(mock, policy(forbidNotApplied=True)).passed
    unchanged = plan_of(flagged_raw(), applied(flagged_raw()), execution=angular)
    assert evaluate_policy(unchanged, policy(forbidNotApplied=True)).passed
