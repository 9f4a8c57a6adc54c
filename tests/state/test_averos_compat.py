"""Averos's own .averos/state.json is read and upgraded: switching plans only what changed."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from averos_ci.errors import StateError
from averos_ci.plan import compute_plan
from averos_ci.state import STATE_FORMAT_VERSION, FileStateStore

REPO = Path(__file__).resolve().parents[2]
DESIGNER_EXPORT = REPO / "tests" / "data" / "averos" / "todoapp-manifest.json"


def averos_app() -> dict[str, Any]:
    app: dict[str, Any] = json.loads(DESIGNER_EXPORT.read_text())["project"]["averosApplication"]
    return app


def write_averos_state(path: Path, manifest: dict[str, Any], node_ids: list[str]) -> None:
    """The state Averos's FileStateStore writes after a full run (no formatVersion)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    state = {
        "manifest": manifest,
        "builtAt": "2026-11-02T09:15:00.000Z",
        "nodeStates": {
            node_id: {"state": "SUCCESS", "lastRunAt": "2026-11-02T09:14:59.000Z"}
            for node_id in node_ids
        },
    }
    path.write_text(json.dumps(state, indent=2))


@pytest.fixture
def averos_project(tmp_path: Path) -> Path:
    """A project Averos built: its manifest and its .averos/state.json."""
    manifest = tmp_path / "app.json"
    manifest.write_text(json.dumps(averos_app(), indent=2))
    built = compute_plan(manifest_path=manifest, state=None).plan
    write_averos_state(tmp_path / ".averos/state.json", averos_app(), [n.id for n in built.nodes])
    return tmp_path


def test_unchanged_manifest_plans_nothing(averos_project: Path) -> None:
    state = FileStateStore(averos_project / ".averos/state.json").load()
    assert state is not None and state.format_version == STATE_FORMAT_VERSION  # via v2 -> v3
    assert state.adapter is None and state.workspace is None  # Averos records neither
    assert state.built_at == "2026-11-02T09:15:00.000Z"
    plan = compute_plan(manifest_path=averos_project / "app.json", state=state).plan
    assert plan.executable_nodes() == []
    assert "application:" + averos_app()["applicationName"] in state.node_states


def test_one_member_change_plans_exactly_that_members_nodes(averos_project: Path) -> None:
    changed = copy.deepcopy(averos_app())
    detail = next(e for e in changed["entities"] if e["name"] == "TaskDetail")
    detail["members"].append(
        {"memberNature": "simple", "mname": "estimate", "memberType": "number",
         "ename": "TaskDetail"}
    )  # fmt: skip
    (averos_project / "app.json").write_text(json.dumps(changed, indent=2))
    state = FileStateStore(averos_project / ".averos/state.json").load()

    plan = compute_plan(manifest_path=averos_project / "app.json", state=state).plan

    assert [(n.id, n.action.value) for n in plan.executable_nodes()] == [
        ("simple-field:TaskDetail:estimate", "create")
    ]


def test_switching_with_the_cli_runs_only_the_change(averos_project: Path) -> None:
    changed = copy.deepcopy(averos_app())
    detail = next(e for e in changed["entities"] if e["name"] == "TaskDetail")
    detail["members"].append(
        {"memberNature": "simple", "mname": "estimate", "memberType": "number",
         "ename": "TaskDetail"}
    )  # fmt: skip
    (averos_project / "app.json").write_text(json.dumps(changed))
    (averos_project / "averos.config.json").write_text(
        json.dumps({"manifestPath": "app.json", "logsDir": "logs", "adapter": "mock"})
    )
    proc = subprocess.run(
        [sys.executable, "-m", "averos_ci", "run", "--config=averos.config.json"],
        cwd=averos_project,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    summary = json.loads((averos_project / "logs/summary.json").read_text())
    assert summary["total"] == 1 and summary["succeeded"] == 1
    saved = json.loads((averos_project / ".averos/state.json").read_text())
    assert saved["formatVersion"] >= 2 and saved["serial"] == 2  # now averos-ci's format


@pytest.mark.parametrize(
    ("document", "where"),
    [
        ({"manifest": {}, "built": "x"}, "at /:"),
        ({"manifest": [], "builtAt": "x", "nodeStates": {}}, "at /manifest:"),
        (
            {"manifest": {}, "builtAt": "x", "nodeStates": {"entity:A": {"state": "DONE"}}},
            "at /nodeStates/entity:A/state:",
        ),
        ({"manifest": {"entities": 3}, "builtAt": "x", "nodeStates": {}}, "at /manifest"),
    ],
)
def test_unknown_shape_is_a_located_error(
    tmp_path: Path, document: dict[str, Any], where: str
) -> None:
    path = tmp_path / "state.json"
    path.write_text(json.dumps(document))
    with pytest.raises(StateError) as info:
        FileStateStore(path).load()
    text = str(info.value)
    assert where in text and "unknown shape" in text
    assert info.value.hint
