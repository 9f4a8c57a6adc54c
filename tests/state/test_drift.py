"""The state's fingerprint and drift: missing files are repaired by the plan, edited files
are user edits, a missing workspace stops `run` before anything is written."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path
from typing import ClassVar

import pytest

from averos_ci.cli import run_cli
from averos_ci.config import load_config
from averos_ci.execute.contracts import (
    ExecutionContext,
    ExecutionResult,
    ExecutionState,
    RuntimeMutation,
)
from averos_ci.plan.model import Action, PlanNode
from averos_ci.planning import apply
from averos_ci.state import FileStateStore
from averos_ci.state.drift import detect_drift
from tests.conftest import EXAMPLE_DIR
from tests.execute.adapters.registered import register_adapter


class FileWriter:
    """Writes one file per node (``gen/<node>.txt``); the entity nodes also touch a shared
    index, so one file has several writers."""

    name: ClassVar[str] = "files"
    supports_concurrency: ClassVar[bool] = False

    def preflight(self, context: ExecutionContext) -> None:
        pass

    def open(self, context: ExecutionContext) -> None:
        pass

    def execute(
        self, node: PlanNode, context: ExecutionContext, state: ExecutionState
    ) -> ExecutionResult:
        rel = f"gen/{node.id.replace(':', '_')}.txt"
        target = context.workspace_root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(f"{node.command} {json.dumps(node.args, sort_keys=True)}\n")
        written = [rel]
        if node.phase.value == "entity":
            index = context.workspace_root / "gen" / "index.txt"
            with index.open("a", encoding="utf-8") as f:
                f.write(node.id + "\n")
            written.append("gen/index.txt")
        return ExecutionResult(
            success=True, duration_ms=0, runtime_mutation=RuntimeMutation(created=tuple(written))
        )

    def close(self) -> None:
        pass


def file_writer(options: object) -> FileWriter:
    return FileWriter()


@pytest.fixture(autouse=True)
def _files_adapter(
    monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """The config names ``files``: registered, as an installed adapter is (``plan`` and
    ``run`` refuse an adapter name the registry does not know)."""
    site = tmp_path_factory.mktemp("site")
    register_adapter(monkeypatch, site, "files", f"{__name__}:file_writer")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    shutil.copy(EXAMPLE_DIR / "todoapp.manifest.yaml", tmp_path / "todoapp.manifest.yaml")
    (tmp_path / "averos.config.json").write_text(
        json.dumps(
            {"manifestPath": "todoapp.manifest.yaml", "workspaceRoot": "app", "adapter": "files"}
        )
    )
    outcome = apply(load_config(tmp_path / "averos.config.json"), adapter=FileWriter())
    assert outcome.summary.success
    return tmp_path


def state_of(project: Path) -> dict[str, object]:
    data: dict[str, object] = json.loads((project / ".averos/state.json").read_text())
    return data


def test_the_state_records_adapter_and_fingerprint(project: Path) -> None:
    state = state_of(project)
    assert state["formatVersion"] == 4
    adapter = state["adapter"]
    assert isinstance(adapter, dict) and adapter["name"] == "files" and adapter["version"]
    assert len(str(adapter["optionsDigest"])) == 64
    nodes = state["workspace"]["nodes"]  # type: ignore[index]
    rel = "gen/entity_ToDoTask.txt"
    digest = nodes["entity:ToDoTask"]["files"][rel]
    import hashlib

    assert digest == hashlib.sha256((project / "app" / rel).read_bytes()).hexdigest()
    # the shared file carries its final content under each of its writers
    shared = {
        n: f["files"]["gen/index.txt"] for n, f in nodes.items() if "gen/index.txt" in f["files"]
    }
    assert len(shared) == 2 and len(set(shared.values())) == 1


def test_missing_file_is_planned_as_a_repair_and_drift_exits_2(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "app/gen/index.txt").unlink()
    (project / "app/gen/entity_ToDoArea.txt").write_text("edited by a person\n")
    config = str(project / "averos.config.json")
    assert run_cli(["plan", "--config", config]) == 0
    out, err = capsys.readouterr()
    assert "drift repair" in out
    assert "~ entity:ToDoArea  restores gen/index.txt" in out
    assert "~ entity:ToDoTask  restores gen/index.txt" in out
    assert "2 to create" in out
    assert "user edits" in err and "gen/entity_ToDoArea.txt" in err
    assert run_cli(["drift", "--config", config, "--detailed-exitcode"]) == 4
    out, _ = capsys.readouterr()
    assert "1 generated file(s) missing" in out and "entity:ToDoTask" in out
    assert run_cli(["drift", "--config", config, "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["missing"] == {"gen/index.txt": ["entity:ToDoArea", "entity:ToDoTask"]}
    assert report["userEdits"] == ["gen/entity_ToDoArea.txt"]
    # the repair run re-runs exactly those nodes; the user edit is not in the plan
    outcome = apply(load_config(project / "averos.config.json"), adapter=FileWriter())
    assert outcome.summary.success and outcome.summary.total == 2
    assert {n.id for n in outcome.plan.nodes if n.action is Action.CREATE} == {
        "entity:ToDoArea",
        "entity:ToDoTask",
    }
    assert (project / "app/gen/index.txt").is_file()
    again = detect_drift(
        FileStateStore(project / ".averos/state.json").load(),
        project / "app",
        state_path="s",
    )
    assert again is not None and not again.has_drift


def test_edits_alone_are_not_drift(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "app/gen/entity_ToDoArea.txt").write_text("edited\n")
    config = str(project / "averos.config.json")
    assert run_cli(["drift", "--config", config, "--detailed-exitcode"]) == 0
    out = capsys.readouterr().out
    # drift and user edits are stated apart: no "No drift" followed by a list of edits
    assert out.startswith("drift: none (no generated file missing;") and "No drift" not in out
    assert "user edits: 1 generated file(s) edited" in out and "not drift" in out
    assert run_cli(["plan", "--config", config, "--detailed-exitcode"]) == 0  # no changes


def test_missing_workspace_stops_run_before_anything_is_written(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.rmtree(project / "app")
    shutil.rmtree(project / ".averos/logs")
    before = (project / ".averos/state.json").read_bytes()
    time.sleep(0.01)
    code = run_cli(["run", "--config", str(project / "averos.config.json")])
    err = capsys.readouterr().err
    assert code == 2
    assert "the workspace is not the application the state describes" in err
    assert str(project / "app") in err and "state.json" in err
    assert "hint: restore the generated application" in err and "averos-ci state reset" in err
    assert not (project / "app").exists()
    assert sorted(p.name for p in (project / ".averos").iterdir()) == ["state.json"]
    assert (project / ".averos/state.json").read_bytes() == before
    assert run_cli(["drift", "--config", str(project / "averos.config.json"),
                    "--detailed-exitcode"]) == 4  # fmt: skip
    assert "does not exist" in capsys.readouterr().out
