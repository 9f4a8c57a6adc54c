"""The one command -> schematic/edit table covers everything the planner emits."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from averos_ci.execute.adapters.angular.mapping import (
    OPERATIONS,
    Bootstrap,
    BuiltinEdit,
    Schematic,
    cli_arguments,
    composite_member_name,
)
from averos_ci.execute.adapters.angular.strings import camelize, classify, dasherize
from averos_ci.plan import compute_plan

REPO = Path(__file__).resolve().parents[4]
EXAMPLE = REPO / "examples" / "todoapp" / "todoapp.manifest.yaml"
GOLDEN = REPO / "tests" / "data" / "averos" / "todoapp-manifest.json"

# docs/CONTRACTS-internal.md, "Plan nodes": every command the planner may emit.
CONTRACT_COMMANDS = {
    "ng-add",
    "averos-entity",
    "add-simple-member",
    "add-composite-member",
    "field-mapping",
    "service-configuration",
    "advanced-crud",
    "create-entity-uc",
    "search-entity-uc",
    "create-page",
    "authentication-provider",
    "http-auth-config",
    "add-language",
    "add-translation-entry",
}


def _planned_commands() -> set[str]:
    commands = set()
    for manifest in (EXAMPLE, GOLDEN):
        plan = compute_plan(manifest_path=manifest, state=None).plan
        commands |= {node.command for node in plan.nodes}
    return commands


def test_every_plan_command_has_a_mapping() -> None:
    planned = _planned_commands()
    assert planned, "no manifest to plan"
    assert planned <= CONTRACT_COMMANDS, (
        f"planner emits unknown commands: {planned - CONTRACT_COMMANDS}"
    )
    assert not (CONTRACT_COMMANDS - set(OPERATIONS)), "commands without a mapping"


def test_mechanisms() -> None:
    assert isinstance(OPERATIONS["ng-add"], Bootstrap)
    for command in (
        "field-mapping",
        "service-configuration",
        "authentication-provider",
        "http-auth-config",
    ):
        assert isinstance(OPERATIONS[command], BuiltinEdit)
    for command, op in OPERATIONS.items():
        if isinstance(op, Schematic):
            assert op.schematic == command


def test_cli_arguments_are_dash_case() -> None:
    args = cli_arguments(
        {
            "ename": "ToDoTask",
            "memberType": "enumeration",
            "listOfEnumValues": "A,B",
            "updateRouteMenu": True,
        }
    )
    assert args == [
        "--ename=ToDoTask",
        "--member-type=enumeration",
        "--list-of-enum-values=A,B",
        "--update-route-menu=true",
    ]


@pytest.mark.parametrize(
    ("text", "dash", "camel", "klass"),
    [
        ("ToDoTask", "to-do-task", "toDoTask", "ToDoTask"),
        ("todo_Id", "todo-id", "todoId", "TodoId"),
        ("full_description", "full-description", "fullDescription", "FullDescription"),
        ("innerHTML", "inner-html", "innerHTML", "InnerHTML"),
    ],
)
def test_devkit_strings(text: str, dash: str, camel: str, klass: str) -> None:
    assert (dasherize(text), camelize(text), classify(text)) == (dash, camel, klass)


def test_composite_member_name_follows_the_schematic() -> None:
    assert composite_member_name({"fename": "ToDoTask", "fieldRelationType": "OneToMany"}) == (
        "toDoTasks"
    )
    assert composite_member_name({"fename": "TaskDetail", "fieldRelationType": "OneToOne"}) == (
        "taskDetail"
    )


@pytest.mark.angular
def test_schematics_and_options_exist_in_the_collection(angular_template: Path) -> None:
    package = angular_template / "node_modules" / "@wiforge" / "averos"
    collection = json.loads((package / "schematics" / "collection.json").read_text())
    samples = {}
    for manifest in (EXAMPLE, GOLDEN):
        for node in compute_plan(manifest_path=manifest, state=None).plan.nodes:
            samples.setdefault(node.command, node.args)
    # No manifest element plans a standalone service (services come with their entity), but
    # the operation exists: check its options with the args its node would carry.
    samples.setdefault("averos-service", {"name": "ToDoAreaService", "ename": "ToDoArea"})
    checked = set()
    for command, op in OPERATIONS.items():
        if not isinstance(op, Schematic):
            continue
        entry = collection["schematics"][op.schematic]
        schema = json.loads((package / "schematics" / entry["schema"]).read_text())
        assert command in samples, f"no sample args for {command}: its options go unchecked"
        options = op.options(samples[command])
        assert options and set(options) <= set(schema["properties"]), command
        checked.add(command)
    assert "averos-service" in checked
