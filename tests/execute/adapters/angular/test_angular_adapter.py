"""The adapter against the real @wiforge/averos schematics, called directly per node."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from averos_ci.execute.adapters.angular import AngularSchematicsAdapter
from averos_ci.execute.adapters.angular.testing import context, tree_digest
from averos_ci.execute.contracts import ExecutionResult, ExecutionState
from averos_ci.plan.model import Action, Phase, PlanNode

pytestmark = pytest.mark.angular


def node(node_id: str, phase: Phase, command: str, **args: Any) -> PlanNode:
    return PlanNode(id=node_id, phase=phase, command=command, action=Action.CREATE, args=args)


ENTITY = node(
    "entity:ToDoTask", Phase.ENTITY, "averos-entity", name="ToDoTask", sname="ToDoTaskService"
)
STATUS = node(
    "simple-field:ToDoTask:status",
    Phase.SIMPLE_FIELD,
    "add-simple-member",
    ename="ToDoTask",
    mname="status",
    memberType="enumeration",
    listOfEnumValues="New,Done",
)
TASK_ID = node(
    "simple-field:ToDoTask:taskId",
    Phase.SIMPLE_FIELD,
    "add-simple-member",
    ename="ToDoTask",
    mname="taskId",
    memberType="string",
    memberTag="ID",
)
FR = node("translation:fr", Phase.TRANSLATION, "add-language", languageCode="fr")
FR_ENTRY = node(
    "translation-entry:fr:todotask.status",
    Phase.TRANSLATION_ENTRY,
    "add-translation-entry",
    lang="fr",
    key="todotask.status",
    value="Statut",
)
PAGE = node(
    "page:AboutPage",
    Phase.PAGE,
    "create-page",
    name="AboutPage",
    updateRouteMenu=True,
    targetMenu="side",
    space="public",
)
SEARCH = node(
    "use-case:SearchToDoTask",
    Phase.USE_CASE,
    "search-entity-uc",
    name="SearchToDoTask",
    ename="ToDoTask",
)
AREA = node("entity:ToDoArea", Phase.ENTITY, "averos-entity", name="ToDoArea")
TASKS = node(
    "composite-field:ToDoArea:toDoTasks",
    Phase.COMPOSITE_FIELD,
    "add-composite-member",
    ename="ToDoArea",
    fename="ToDoTask",
    memberName="toDoTasks",
    fieldRelationType="OneToMany",
    deleteStrategy="DELETE_CHILDREN",
)
CRUD = node(
    "use-case:ToDoAreaCRUD", Phase.USE_CASE, "advanced-crud", name="ToDoAreaCRUD", ename="ToDoArea"
)
NODES = [ENTITY, AREA, STATUS, TASK_ID, TASKS, FR, FR_ENTRY, PAGE, SEARCH, CRUD]


def run_nodes(
    adapter: AngularSchematicsAdapter, ws: Path, nodes: list[PlanNode], *, dry_run: bool = False
) -> list[ExecutionResult]:
    adapter.preflight(context(ws, dry_run=dry_run))
    adapter.open(context(ws, dry_run=dry_run))
    try:
        state = ExecutionState(cwd=ws)
        return [adapter.execute(n, context(ws, n.id, dry_run=dry_run), state) for n in nodes]
    finally:
        adapter.close()


def test_nodes_report_mutations_and_logs(workspace: Path) -> None:
    results = run_nodes(AngularSchematicsAdapter({}), workspace, NODES)
    assert all(r.success for r in results), [r.failure for r in results]
    entity = results[0].runtime_mutation
    assert entity is not None
    assert "src/app/model/to-do-task.ts" in entity.created
    assert "src/app/service/application-initializer.service.ts" in entity.updated
    status = results[2].runtime_mutation
    assert status is not None and status.created == ("src/app/model/status.ts",)
    assert "status!: Status;" in (workspace / "src/app/model/to-do-task.ts").read_text()
    tag = results[3].runtime_mutation
    assert tag is not None and not any(p.startswith("src/assets/") for p in tag.created)
    tag_log = workspace.parent / "ws-logs" / "nodes" / "simple-field_ToDoTask_taskId.log"
    assert "NOT APPLIED" not in tag_log.read_text()  # memberTag: ID takes effect (issue 41)
    model = (workspace / "src/app/model/to-do-task.ts").read_text()
    assert re.search(r"@ID\(\)\r?\n\s*taskId!: string;", model) and model.count("@ID()") == 1
    fr = json.loads((workspace / "src/assets/i18n/fr.json").read_text())
    assert fr["todotask.status"] == "Statut"
    log = (workspace.parent / "ws-logs" / "nodes" / "entity_ToDoTask.log").read_text()
    assert "@wiforge/averos:averos-entity" in log and "CREATE src/app/model/to-do-task.ts" in log
    assert not (workspace / ".averos-ci").exists()


def test_rerun_is_idempotent(workspace: Path) -> None:
    assert all(r.success for r in run_nodes(AngularSchematicsAdapter({}), workspace, NODES))
    before = tree_digest(workspace)
    again = run_nodes(AngularSchematicsAdapter({}), workspace, NODES)
    assert all(r.success for r in again), [r.failure for r in again]
    assert tree_digest(workspace) == before
    for result in again:
        m = result.runtime_mutation
        assert m is not None and not (m.created or m.updated or m.deleted)


def test_failing_schematic_is_an_execution_failure(workspace: Path) -> None:
    before = tree_digest(workspace)
    orphan = node(
        "simple-field:Nope:x",
        Phase.SIMPLE_FIELD,
        "add-simple-member",
        ename="Nope",
        mname="x",
        memberType="string",
    )
    [result] = run_nodes(AngularSchematicsAdapter({}), workspace, [orphan])
    assert not result.success and result.failure is not None
    assert result.failure.code == "SCHEMATIC_FAILED"
    assert "Entity Nope does not exist" in result.failure.message
    assert tree_digest(workspace) == before


def test_dry_run_writes_nothing(workspace: Path) -> None:
    before = tree_digest(workspace)
    results = run_nodes(AngularSchematicsAdapter({}), workspace, NODES, dry_run=True)
    assert all(r.success for r in results), [r.failure for r in results]
    # later nodes saw what earlier ones would have created (in-memory tree)
    status = results[2].runtime_mutation
    assert status is not None and "src/app/model/status.ts" in status.created
    assert tree_digest(workspace) == before
    assert not (workspace / ".averos-ci").exists()


def test_per_process_runner_gives_the_same_workspace(
    workspace: Path, angular_template: Path, tmp_path: Path
) -> None:
    from averos_ci.execute.adapters.angular.testing import fresh_workspace

    subset = [ENTITY, STATUS, FR, FR_ENTRY]
    other = fresh_workspace(angular_template, tmp_path / "ws-pp", shared_node_modules=True)
    batched = run_nodes(AngularSchematicsAdapter({}), workspace, subset)
    per_process = run_nodes(AngularSchematicsAdapter({"runner": "per-process"}), other, subset)
    assert all(r.success for r in batched + per_process), [r.failure for r in per_process]
    assert tree_digest(workspace) == tree_digest(other)
    assert [r.runtime_mutation for r in batched] == [r.runtime_mutation for r in per_process]


def test_operations_without_schematic(workspace: Path) -> None:
    config = node(
        "service-config:S",
        Phase.SERVICE_CONFIG,
        "service-configuration",
        name="S",
        id="ToDoTaskService",
        type="service",
        apiHost="h",
        apiPort=1,
        apiProtocol="http",
        apiEndPoint="/x",
        apiHTTPQueryBuilder="mongodb",
    )
    _, ok = run_nodes(AngularSchematicsAdapter({}), workspace, [ENTITY, config])
    assert ok.success and ok.runtime_mutation is not None
    service = "src/app/service/to-do-task-service.service.ts"
    assert ok.runtime_mutation.updated == (service,) and ok.runtime_mutation.created == ()
    text = (workspace / service).read_text()
    assert "public toDoTaskAPI = 'http://h:1/x';" in text
    assert "criteria.toHttpQuery()" in text
    [again] = run_nodes(AngularSchematicsAdapter({}), workspace, [config])
    assert again.runtime_mutation is not None and again.runtime_mutation.updated == ()
    [refused] = run_nodes(AngularSchematicsAdapter({"builtinEdits": False}), workspace, [config])
    assert refused.failure is not None and refused.failure.code == "UNSUPPORTED"
    assert "unsupported by collection @wiforge/averos" in refused.failure.message


def test_composite_member_name_the_collection_cannot_choose(workspace: Path) -> None:
    area = node("entity:ToDoArea", Phase.ENTITY, "averos-entity", name="ToDoArea")
    tasks = node(
        "composite-field:ToDoArea:items",
        Phase.COMPOSITE_FIELD,
        "add-composite-member",
        ename="ToDoArea",
        fename="ToDoTask",
        memberName="items",
        fieldRelationType="OneToMany",
        deleteStrategy=None,
    )
    results = run_nodes(AngularSchematicsAdapter({}), workspace, [ENTITY, area, tasks])
    failure = results[2].failure
    assert failure is not None and failure.code == "UNSUPPORTED"
    assert "toDoTasks" in failure.message and "items" in failure.message


def test_unknown_command_fails(workspace: Path) -> None:
    odd = node("validator:x", Phase.VALIDATOR, "add-validator", name="x")
    [result] = run_nodes(AngularSchematicsAdapter({}), workspace, [odd])
    assert result.failure is not None and result.failure.code == "UNSUPPORTED"


@pytest.mark.parametrize("name", ["../../evil", "a/b", ".hidden", "a\\b"])
def test_names_cannot_leave_the_workspace(workspace: Path, name: str) -> None:
    before = tree_digest(workspace)
    bad = node(f"entity:{name}", Phase.ENTITY, "averos-entity", name=name, sname="S")
    [result] = run_nodes(AngularSchematicsAdapter({}), workspace, [bad])
    assert result.failure is not None and result.failure.code == "INVALID_ARGS"
    assert tree_digest(workspace) == before
