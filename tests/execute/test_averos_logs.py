"""Averos's log files in logsDir: execution-plan.json, execution-log.jsonl, summary.txt."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import copy_example

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "todoapp"
NODE_KEYS = {"id", "phase", "command", "runner", "action", "args", "dependsOn"}
RECORD_KEYS = {"nodeId", "command", "startedAt", "finishedAt", "durationMs", "success"}
# What Averos's own CLI writes, transcribed from its source (tests/data/SOURCES.md): the
# other tests here check shapes they wrote themselves; this one checks against Averos's.
AVEROS_SHAPES = REPO / "tests" / "data" / "averos" / "cli-node-logger.shapes.json"
JSON_TYPES = {"string": str, "number": int | float, "boolean": bool}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "todo"
    copy_example(root, mock=True)
    config = json.loads((root / "averos.config.json").read_text())
    config.update(
        mode="resilient",
        maxAttempts=1,
        adapterOptions={"failNodes": ["simple-field:ToDoTask:status"]},
    )
    (root / "averos.config.json").write_text(json.dumps(config))
    return root


def run(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "averos_ci", "run", "--config=averos.config.json", *args],
        cwd=project,
        capture_output=True,
        text=True,
        check=False,
    )


def test_averos_files_after_a_run(project: Path) -> None:
    proc = run(project)
    assert proc.returncode == 1
    logs = project / ".averos/logs"

    plan = json.loads((logs / "execution-plan.json").read_text())
    assert set(plan) == {"nodes", "byPhase", "warnings"}
    assert len(plan["nodes"]) == 33 and plan["warnings"] == []
    for node in plan["nodes"]:
        assert set(node) == NODE_KEYS
        assert node["runner"] == "ng" and node["action"] in ("create", "update", "skip")
        assert isinstance(node["dependsOn"], list)
    assert plan["nodes"][0]["phase"] == "application"
    flattened = [n["id"] for nodes in plan["byPhase"].values() for n in nodes]
    assert sorted(flattened) == sorted(n["id"] for n in plan["nodes"])

    records = [json.loads(line) for line in (logs / "execution-log.jsonl").read_text().splitlines()]
    by_id = {r["nodeId"]: r for r in records}
    assert len(records) == len(by_id) == 33  # one per finished node
    failed = by_id["simple-field:ToDoTask:status"]
    assert set(failed) == RECORD_KEYS | {"error"}
    assert failed["success"] is False and "simulated failure" in failed["error"]
    ok = by_id["entity:ToDoTask"]
    assert set(ok) == RECORD_KEYS and ok["success"] is True and ok["command"] == "averos-entity"
    assert ok["startedAt"] <= ok["finishedAt"]

    summary = (logs / "summary.txt").read_text()
    assert summary.startswith("Averos Execution Summary\nGenerated : ")
    assert "\nTotal     : 33\n" in summary
    assert "\nFailed    : 1\n" in summary
    assert "  ✗ simple-field:ToDoTask:status" in summary
    assert "    → simulated failure of simple-field:ToDoTask:status" in summary
    # averos-ci's own files are still there
    assert (logs / "events.jsonl").is_file() and (logs / "summary.json").is_file()


def test_each_run_starts_a_fresh_execution_log_and_dry_runs_write_none(project: Path) -> None:
    assert run(project).returncode == 1
    logs = project / ".averos/logs"
    config = json.loads((project / "averos.config.json").read_text())
    config["adapterOptions"] = {}
    (project / "averos.config.json").write_text(json.dumps(config))
    stamp = (logs / "summary.txt").read_text()
    dry = run(project, "--resume", "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert (logs / "summary.txt").read_text() == stamp  # a dry run writes no log file

    assert run(project, "--resume").returncode == 0
    records = [json.loads(x) for x in (logs / "execution-log.jsonl").read_text().splitlines()]
    assert all(r["success"] for r in records)
    assert "\nFailed    : 0\n" in (logs / "summary.txt").read_text()


def test_the_log_files_have_the_shapes_averos_cli_writes(project: Path) -> None:
    shapes = json.loads(AVEROS_SHAPES.read_text(encoding="utf-8"))
    assert run(project).returncode == 1  # one node fails: the failure fields appear too
    logs = project / ".averos/logs"
    record = shapes["record"]
    allowed = set(record["required"]) | set(record["optional"])
    lines = (logs / shapes["jsonlFile"]).read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines]
    assert records
    for r in records:
        assert set(record["required"]) <= set(r) <= allowed, r
        for key, value in r.items():
            wanted = JSON_TYPES[record["types"][key]]
            assert isinstance(value, wanted) and (wanted is bool) == (type(value) is bool), r
    assert any("error" in r and r["success"] is False for r in records)

    summary = shapes["summary"]
    text = (logs / shapes["summaryFile"]).read_text(encoding="utf-8")
    assert text.splitlines()[0] == summary["firstLine"]
    for label in summary["labels"]:
        assert f"\n{label}" in text, label
    assert f"\n{summary['failuresHeading']}\n" in text
    assert f"  {summary['succeededIcon']} " in text and f"  {summary['failedIcon']} " in text
    assert f"\n{summary['failureDetailPrefix']}" in text
