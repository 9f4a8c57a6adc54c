"""End to end with the real schematics: the ToDo example through `averos-ci run`.

Generates examples/todoapp, compiles it with the Angular compiler, kills a run with SIGKILL
and resumes it (same workspace, file for file), then evolves the app with a second manifest
version while the user's own edits survive.

The adapter regenerates (averos_ci.execute.regen): a run generates the manifest from nothing in
a scratch workspace next to the state (checkpointed there, so a killed run resumes its clean
generation) and merges the result into the workspace.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from averos_ci.config import load_config
from averos_ci.execute import apply
from averos_ci.execute.adapters.angular.testing import tree_digest
from tests.scenarios.angular import applied, built
from tests.scenarios.angular.applied import TODO as EXAMPLE
from tests.scenarios.angular.applied import ApplyProject, ng_build

pytestmark = [pytest.mark.angular, pytest.mark.slow]

V2 = Path(__file__).parent / "data" / "todoapp.v2.manifest.yaml"
SERVICES = (
    "src/app/service/to-do-task-service.service.ts",
    "src/app/service/to-do-area-service.service.ts",
)
applied_project = applied.applied_project  # the session's applied projects (a fixture)
todo_build = built.todo_build  # the ToDo example's build, shared with the browser test
CLI = [sys.executable, "-c", "from averos_ci.cli import main; main()"]


def make_project(base: Path, manifest: Path = EXAMPLE) -> Path:
    return applied.make_project(base, manifest)


@pytest.fixture
def applied_v1(
    applied_project: ApplyProject, angular_env: Path, tmp_path: Path
) -> tuple[Path, dict[str, str]]:
    """A copy of one uninterrupted run of the example (once per session): the reference."""
    project = applied_project(EXAMPLE, tmp_path / "v1")
    return project, tree_digest(project / "workspace")


def test_generated_app(applied_v1: tuple[Path, dict[str, str]]) -> None:
    project, digest = applied_v1
    ws = project / "workspace"
    assert "src/app/model/to-do-area.ts" in digest
    assert "toDoTasks!: ToDoTask[]" in (ws / "src/app/model/to-do-area.ts").read_text()
    assert (
        ws / "src/app/view/to-do-task/search-to-do-task/search-to-do-task.component.ts"
    ).exists()
    fr = json.loads((ws / "src/assets/i18n/fr.json").read_text())
    assert fr["todotask.status.closed"] == "Terminée"  # Averos lower-cases keys
    service = (ws / "src/app/service/to-do-task-service.service.ts").read_text()
    assert "public toDoTaskAPI = 'http://127.0.0.1:3333/api/todotasks';" in service
    assert "criteria.toHttpQuery()" in service  # mongodb: the runtime's filter={...} dialect
    assert "entityAccessor: '_id'" in service  # fieldMappings: taskId -> _id
    assert "    _id!: string;" in (ws / "src/app/model/to-do-task.ts").read_text()
    assert not (ws / "src/assets/environment").exists()  # no bookkeeping presented as config
    assert not (ws / "src/assets/entity").exists()
    assert not (ws / ".averos-ci").exists()
    logs = project / ".averos" / "logs"
    assert any("averos-entity" in p.read_text() for p in logs.rglob("*.log"))


@pytest.mark.xdist_group(built.TODO_GROUP)
def test_generated_app_compiles(
    applied_v1: tuple[Path, dict[str, str]], todo_build: built.Built
) -> None:
    """The build is the browser test's (tests/scenarios/angular/built.py): the same example
    generated from nothing, but for its services' port, which only their URLs show."""
    ws, (project, digest) = todo_build.workspace, applied_v1
    differ = {
        p
        for p in digest.keys() | todo_build.digest.keys()
        if digest.get(p) != todo_build.digest.get(p)
    }
    assert differ == set(SERVICES)
    for path in SERVICES:
        ours = (project / "workspace" / path).read_text(encoding="utf-8")
        assert ours.count("'http://127.0.0.1:3333/api/") == 1, path
        moved = ours.replace(":3333/", f":{todo_build.api_port}/")
        assert (ws / path).read_text(encoding="utf-8") == moved, path
    assert (todo_build.served / "index.html").is_file()  # the build succeeded


def _succeeded(project: Path) -> int:
    events = project / ".averos" / "logs" / "events.jsonl"
    return events.read_text().count('"NODE_SUCCEEDED"') if events.exists() else 0


@pytest.mark.parametrize(("kill_after", "delay"), [(1, 0.0), (12, 0.0), (20, 0.02), (27, 0.0)])
def test_sigkill_then_resume_gives_the_same_workspace(
    applied_v1: tuple[Path, dict[str, str]],
    angular_env: Path,
    tmp_path: Path,
    kill_after: int,
    delay: float,
) -> None:
    project = make_project(tmp_path / "project")
    config = str(project / "averos.config.json")
    proc = subprocess.Popen(
        [*CLI, "run", "--config", config], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    deadline = time.monotonic() + 600
    while _succeeded(project) < kill_after and proc.poll() is None:
        assert time.monotonic() < deadline, "the run made no progress"
        time.sleep(0.002)
    time.sleep(delay)  # land inside the next node, at different points of its writes
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL, "the run finished before it could be killed"
    # the clean generation is checkpointed in its scratch workspace; no state was recorded
    scratch = list((project / ".averos/regen").glob("*/checkpoints.jsonl"))
    assert kill_after == 1 or (scratch and '"SUCCESS"' in scratch[0].read_text())
    assert not (project / ".averos/state.json").exists()
    resumed = subprocess.run(
        [*CLI, "run", "--config", config, "--resume"], capture_output=True, text=True, check=False
    )
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert tree_digest(project / "workspace") == applied_v1[1]
    assert not (project / ".averos/regen").exists()  # the scratch workspace is gone


def test_second_manifest_is_merged_and_keeps_user_edits(
    applied_v1: tuple[Path, dict[str, str]], angular_env: Path
) -> None:
    project, _ = applied_v1
    ws = project / "workspace"
    component = ws / "src/app/app.component.html"
    component.write_text(component.read_text() + "\n<!-- my own footer -->\n")
    (ws / "src/app/custom").mkdir()
    (ws / "src/app/custom/helper.ts").write_text("export const answer = 42;\n")
    # v2 also adds CreateToDoArea, a Create_Entity use case whose page ToDoAreaCRUD generates
    (project / "todoapp.manifest.yaml").write_text(V2.read_text())

    outcome = apply(load_config(project / "averos.config.json"))

    assert outcome.summary.success, outcome.summary.failures
    ran = {n.id for n in outcome.plan.executable_nodes()}
    assert ran == {
        "simple-field:ToDoTask:priority",
        "translation-entry:fr:todotask.priority",
        "use-case:CreateToDoArea",
    }
    # the plan lists the new elements; the code is the merge of two clean generations, so the
    # new member has the manifest's type (a schematic run on the existing file wrote `string`)
    assert "    priority!: number;" in (ws / "src/app/model/to-do-task.ts").read_text()
    routing = (ws / "src/app/app-routing.module.ts").read_text()
    assert routing.count("{ path: 'todoareas/create', component: CreateToDoAreaComponent}") == 1
    assert routing.count("{ path: 'todoareas/search', component: SearchToDoAreaComponent}") == 1
    fr = json.loads((ws / "src/assets/i18n/fr.json").read_text())
    assert fr["todotask.priority"] == "Priorité"
    assert component.read_text().endswith("<!-- my own footer -->\n")
    assert (ws / "src/app/custom/helper.ts").read_text() == "export const answer = 42;\n"


def test_a_crud_and_a_create_use_case_of_one_entity_generate_from_nothing_and_build(
    applied_project: ApplyProject, angular_env: Path, tmp_path: Path
) -> None:
    """Averos 1.4.1's advanced-crud fails on a page a Create_Entity use case of the same name
    generated before it ("A merge conflicted on path .../create-to-do-area.component.html"):
    the adapter runs only the part of the CRUD still missing (mapping._crud_remaining)."""
    v2 = V2.read_text()
    create = v2.index(
        "  - name: CreateToDoArea\n    ename: ToDoArea\n    useCaseType: Create_Entity"
    )
    assert v2.index("  - name: ToDoAreaCRUD\n    ename: ToDoArea\n    useCaseType: CRUD") < create
    project = applied_project(V2, tmp_path / "v2")  # asserts the run succeeded
    ws = project / "workspace"
    routing = (ws / "src/app/app-routing.module.ts").read_text()
    for page in ("create", "search"):
        assert routing.count(f"{{ path: 'todoareas/{page}', component: ") == 1, page
    menu = json.loads((ws / "src/assets/menu/menu.default.json").read_text())
    [area] = [m for m in menu["sideMenu"] if m["displayName"] == "ToDoArea"]
    assert [c["route"] for c in area["children"]] == ["/todoareas/create", "/todoareas/search"]
    ng_build(ws, angular_env)


def test_dry_run_of_a_new_app_writes_nothing(
    angular_template: Path, angular_env: Path, tmp_path: Path
) -> None:
    project = make_project(tmp_path / "project")
    outcome = apply(load_config(project / "averos.config.json"), dry_run=True)
    assert outcome.summary.success, outcome.summary.failures
    assert not (project / "workspace").exists()
    assert not any(tmp_path.glob("project/.workspace*"))
