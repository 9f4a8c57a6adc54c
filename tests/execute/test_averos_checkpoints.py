"""Averos's own .averos/checkpoints.json: `--resume` continues an Averos run's progress."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from averos_ci.errors import StateError
from averos_ci.execute import FileCheckpointStore, parse_event
from tests.conftest import copy_example

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "todoapp"
DONE_BY_AVEROS = ["application:ToDoApp", "entity:ToDoArea", "entity:ToDoTask"]


def run(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "averos_ci", "run", "--config=averos.config.json", *args],
        cwd=project,
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "todo"
    copy_example(root, mock=True)
    return root


def averos_checkpoint(node_id: str, status: str = "SUCCESS") -> dict[str, Any]:
    return {"nodeId": node_id, "status": status, "updatedAt": "2026-11-02T09:14:59.000Z"}


@pytest.mark.parametrize("form", ["object", "entries", "list"])
def test_resume_skips_what_averos_finished(project: Path, form: str) -> None:
    records = [averos_checkpoint(n) for n in DONE_BY_AVEROS]
    records.append(averos_checkpoint("simple-field:ToDoArea:title", "FAILED"))
    document: object = {
        "object": {r["nodeId"]: r for r in records},
        "entries": [[r["nodeId"], r] for r in records],
        "list": records,
    }[form]
    path = project / ".averos/checkpoints.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, indent=2))

    refused = run(project)
    assert refused.returncode == 2 and "--resume" in refused.stderr

    proc = run(project, "--resume")

    assert proc.returncode == 0, proc.stderr
    events = [parse_event(x) for x in (project / ".averos/logs/events.jsonl").read_text().split()]
    resumed = {e.node_id for e in events if e.type == "NODE_SUCCEEDED" and e.resumed}
    started = {e.node_id for e in events if e.type == "NODE_STARTED"}
    assert resumed == set(DONE_BY_AVEROS)
    assert not started & set(DONE_BY_AVEROS)
    assert "simple-field:ToDoArea:title" in started  # FAILED in Averos: run again
    assert not path.exists()  # a finished run clears them, as its own


def test_an_interrupted_switch_keeps_averos_progress(project: Path) -> None:
    path = project / ".averos/checkpoints.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps([averos_checkpoint(n) for n in DONE_BY_AVEROS]))
    store = FileCheckpointStore(path)
    store.begin(plan_hash="a" * 64, run_id="r1")
    store.close()
    log = FileCheckpointStore(path).read()
    assert log.plan_hash == "a" * 64  # bound to the plan, in averos-ci's journal format
    assert sorted(log.checkpoints) == sorted(DONE_BY_AVEROS)
    assert path.read_text().startswith('{"formatVersion":1')


@pytest.mark.parametrize(
    ("document", "where"),
    [
        ("[1, 2]", "at /0"),
        ('{"entity:A": {"nodeId": "entity:B", "status": "SUCCESS"}}', "at /entity:A"),
        ('"text"', "unknown shape"),
    ],
)
def test_unknown_checkpoint_shape_is_located(tmp_path: Path, document: str, where: str) -> None:
    path = tmp_path / "checkpoints.json"
    path.write_text(document)
    with pytest.raises(StateError, match=where) as info:
        FileCheckpointStore(path).read()
    assert info.value.hint
