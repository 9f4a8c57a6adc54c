"""``averos-ci run`` end to end in a subprocess, on a copy of examples/todoapp."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from averos_ci.execute import parse_event
from averos_ci.execute.logs import node_log_name
from tests.conftest import REPO_ROOT, copy_example, require_tool


def cli(workdir: Path, *args: str, env: dict[str, str] | None = None,
        prog: list[str] | None = None) -> subprocess.CompletedProcess[str]:  # fmt: skip
    command = (prog or [sys.executable, "-m", "averos_ci"]) + list(args)
    full_env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), **(env or {})}
    return subprocess.run(command, cwd=workdir, capture_output=True, text=True, env=full_env,
                          timeout=120)  # fmt: skip


@pytest.fixture
def project(tmp_path: Path) -> Path:
    work = tmp_path / "project"
    return copy_example(work, mock=True)


def configure(project: Path, **changes: Any) -> None:
    path = project / "averos.config.json"
    data = json.loads(path.read_text())
    data.update(changes)
    path.write_text(json.dumps(data))


def events(project: Path) -> list[Any]:
    lines = (project / ".averos/logs/events.jsonl").read_text().splitlines()
    return [parse_event(line) for line in lines]


def test_successful_run_writes_state_logs_and_reports(project: Path, tmp_path: Path) -> None:
    step_summary = tmp_path / "step-summary.md"
    step_summary.write_text("previous\n")
    out = tmp_path / "out"
    configure(project, adapterOptions={"latencyMs": 1})  # the mock then logs every node
    r = cli(project, "run", "--config=averos.config.json", "--junit", str(out / "junit.xml"),
            "--summary-md", str(out / "summary.md"), "--summary-json", str(out / "s.json"),
            env={"GITHUB_STEP_SUMMARY": str(step_summary)})  # fmt: skip
    assert r.returncode == 0, r.stderr
    state = json.loads((project / ".averos/state.json").read_text())
    assert state["serial"] == 1 and state["formatVersion"] == 4
    assert not (project / ".averos/checkpoints.json").exists()
    summary = json.loads((project / ".averos/logs/summary.json").read_text())
    assert summary["success"] is True and summary["formatVersion"] == 1
    assert summary["total"] == summary["succeeded"] == len(state["nodeStates"])
    assert json.loads((out / "s.json").read_text()) == summary
    logs = sorted(p.name for p in (project / ".averos/logs/nodes").iterdir())
    assert logs == sorted(node_log_name(n) for n in state["nodeStates"])
    assert all(":" not in name for name in logs)
    kinds = [e.type.value for e in events(project)]
    assert kinds.count("NODE_SUCCEEDED") == summary["total"] and kinds[-1] == "RUNNER_COMPLETED"
    assert step_summary.read_text().startswith("previous\n## averos-ci run: ✅ succeeded")
    assert (out / "summary.md").read_text() in step_summary.read_text()
    assert (out / "junit.xml").read_text().count("<testcase") == summary["total"]
    again = cli(project, "run", "--config=averos.config.json")
    assert again.returncode == 0, again.stderr
    assert json.loads((project / ".averos/state.json").read_text())["serial"] == 1  # no changes


def test_averos_spelling_works_unchanged(project: Path) -> None:
    averos = require_tool("averos", install="pip install -e . puts the console scripts on PATH")
    r = cli(project, "run", "--config=averos.config.json", "--verbose", "--resume",
            prog=[averos])  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert "ok entity:ToDoTask" in r.stdout and "run succeeded" in r.stdout


def test_failed_run_keeps_state_and_resume_reruns_only_unfinished(project: Path) -> None:
    configure(project, mode="resilient", maxAttempts=1,
              adapterOptions={"failNodes": ["entity:ToDoTask"]})  # fmt: skip
    r = cli(project, "run", "--config=averos.config.json")
    assert r.returncode == 1, r.stderr
    assert "run failed" in r.stderr and "entity:ToDoTask" in r.stderr
    assert not (project / ".averos/state.json").exists()
    assert (project / ".averos/checkpoints.json").exists()
    first = events(project)
    succeeded_before = {e.node_id for e in first if e.type.value == "NODE_SUCCEEDED"}
    skipped_before = {e.node_id for e in first if e.type.value == "NODE_SKIPPED"}
    assert skipped_before and "entity:ToDoTask" not in succeeded_before

    refused = cli(project, "run", "--config=averos.config.json")
    assert refused.returncode == 2 and "--resume" in refused.stderr

    configure(project, adapterOptions={})
    r = cli(project, "run", "--config=averos.config.json", "--resume")
    assert r.returncode == 0, r.stderr
    second = events(project)[len(first) :]
    started = {e.node_id for e in second if e.type.value == "NODE_STARTED"}
    assert started.isdisjoint(succeeded_before)
    assert started == skipped_before | {"entity:ToDoTask"}
    assert json.loads((project / ".averos/logs/summary.json").read_text())["succeeded"] == len(
        succeeded_before | started)  # fmt: skip
    assert json.loads((project / ".averos/state.json").read_text())["serial"] == 1
    assert not (project / ".averos/checkpoints.json").exists()


def test_resume_with_another_plan_is_refused_and_replan_starts_over(project: Path) -> None:
    configure(project, adapterOptions={"failNodes": ["use-case:SearchToDoTask"]})
    assert cli(project, "run", "--config=averos.config.json").returncode == 1
    manifest = project / "todoapp.manifest.yaml"
    manifest.write_text(manifest.read_text().replace("ToDoApp", "ToDoApp2", 1))
    configure(project, adapterOptions={})
    r = cli(project, "run", "--config=averos.config.json", "--resume")
    assert r.returncode == 2
    assert "refusing to resume another plan" in r.stderr and "--replan" in r.stderr
    r = cli(project, "run", "--config=averos.config.json", "--replan")
    assert r.returncode == 0, r.stderr


def test_corrupt_checkpoint_file_is_a_clear_error(project: Path) -> None:
    configure(project, adapterOptions={"failNodes": ["use-case:SearchToDoTask"]})
    assert cli(project, "run", "--config=averos.config.json").returncode == 1
    path = project / ".averos/checkpoints.json"
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(lines[0] + b"#garbage#\n" + b"".join(lines[1:]))
    r = cli(project, "run", "--config=averos.config.json", "--resume")
    assert r.returncode == 2
    assert "checkpoint file is corrupt" in r.stderr and "checkpoints.json:2" in r.stderr
    assert "Traceback" not in r.stderr


def test_dry_run_writes_nothing(project: Path) -> None:
    r = cli(project, "run", "--config=averos.config.json", "--dry-run", "--verbose")
    assert r.returncode == 0, r.stderr
    assert not (project / ".averos").exists()
    assert "run succeeded" in r.stdout


def test_timeout_exits_130_and_resume_completes(project: Path) -> None:
    configure(project, timeoutMs=300, adapterOptions={"latencyMs": 40})
    r = cli(project, "run", "--config=averos.config.json")
    assert r.returncode == 130, r.stderr
    assert "timeout" in r.stderr and "--resume" in r.stderr
    log = (project / ".averos/checkpoints.json").read_text()
    assert '"SUCCESS"' in log
    configure(project, timeoutMs=600_000)
    r = cli(project, "run", "--config=averos.config.json", "--resume")
    assert r.returncode == 0, r.stderr


@pytest.mark.parametrize(
    ("config", "expected"),
    [
        ({"maxAttempts": "three"}, "averos.config.json:"),
        ({"mode": "fast"}, "/mode"),
        ({"adapter": "nope"}, "available adapters: "),
        ({"adapterOptions": {"latency": 1}}, "unknown adapterOptions"),
    ],
)
def test_bad_config_exits_2(project: Path, config: dict[str, Any], expected: str) -> None:
    configure(project, **config)
    r = cli(project, "run", "--config=averos.config.json")
    assert r.returncode == 2, r.stderr
    assert expected in r.stderr and "Traceback" not in r.stderr


def test_unknown_config_key_warns_and_cli_overrides_file(project: Path) -> None:
    configure(project, colour="blue", adapterOptions={"failNodes": ["entity:ToDoTask"]})
    r = cli(project, "run", "--config=averos.config.json", "--adapter", "mock",
            "--mode", "resilient", "--max-attempts", "1")  # fmt: skip
    assert "unknown config key 'colour'" in r.stderr
    assert r.returncode == 1
    summary = json.loads((project / ".averos/logs/summary.json").read_text())
    assert summary["mode"] == "resilient" and summary["skipped"] > 0


def test_a_former_conflict_now_applies_as_a_replacement(project: Path) -> None:
    """Issue 21: renaming the application used to be "cannot change after creation" (exit 5);
    it is now a replacement (-/+) that applies."""
    assert cli(project, "run", "--config=averos.config.json").returncode == 0
    manifest = project / "todoapp.manifest.yaml"
    manifest.write_text(manifest.read_text().replace("applicationName: ToDoApp",
                                                     "applicationName: ToDoApp2"))  # fmt: skip
    r = cli(project, "plan", "--config=averos.config.json")
    assert r.returncode == 0, r.stderr
    assert "-/+ application:ToDoApp2" in r.stdout and "forces replacement" in r.stdout
    r = cli(project, "run", "--config=averos.config.json")
    assert r.returncode == 0, r.stderr
    state = json.loads((project / ".averos/state.json").read_text())
    assert state["manifest"]["application"]["applicationName"] == "ToDoApp2"


def test_a_merge_conflict_is_refused_before_anything_is_written(project: Path) -> None:
    configure(project, adapterOptions={"writeFiles": True})
    assert cli(project, "run", "--config=averos.config.json").returncode == 0
    model = project / "workspace/src/app/model/to-do-task.ts"
    model.write_text(model.read_text().replace("dueDate?: date;", "dueDate?: Date; // mine"))
    state_before = (project / ".averos/state.json").read_bytes()
    manifest = project / "todoapp.manifest.yaml"
    text = manifest.read_text()
    at = text.index("mname: dueDate")
    manifest.write_text(text[:at] + text[at:].replace("memberType: date", "memberType: string", 1))
    r = cli(project, "run", "--config=averos.config.json")
    assert r.returncode == 5, r.stderr  # the conflict code, as plan --detailed-exitcode
    assert "conflict" in r.stderr and "hint:" in r.stderr and "--merge-conflicts" in r.stderr
    assert "dueDate?: Date; // mine" in r.stderr  # the conflicting hunk is shown
    assert (project / ".averos/state.json").read_bytes() == state_before
    assert "dueDate?: Date; // mine" in model.read_text() and "<<<<<<<" not in model.read_text()


def test_dry_run_resume_reads_checkpoints_but_writes_nothing(project: Path) -> None:
    configure(project, adapterOptions={"failNodes": ["use-case:SearchToDoTask"]})
    assert cli(project, "run", "--config=averos.config.json").returncode == 1
    before = {p: p.read_bytes() for p in (project / ".averos").rglob("*") if p.is_file()}
    configure(project, adapterOptions={})
    r = cli(project, "run", "--config=averos.config.json", "--dry-run", "--resume", "--verbose")
    assert r.returncode == 0, r.stderr
    assert "already done (resumed)" in r.stdout and "ok use-case:SearchToDoTask" in r.stdout
    after = {p: p.read_bytes() for p in (project / ".averos").rglob("*") if p.is_file()}
    assert after == before


def test_a_closed_stdout_does_not_break_the_run(project: Path) -> None:
    command = [sys.executable, "-m", "averos_ci", "run", "--config=averos.config.json", "-v"]
    proc = subprocess.Popen(command, cwd=project, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env={**os.environ, "PYTHONPATH": str(REPO_ROOT)})  # fmt: skip
    assert proc.stdout is not None
    proc.stdout.readline()
    proc.stdout.close()  # like `averos-ci run -v | head -1`
    proc.wait(timeout=60)
    assert proc.stderr is not None
    proc.stderr.close()
    summary = json.loads((project / ".averos/logs/summary.json").read_text())
    assert summary["success"] is True
    assert json.loads((project / ".averos/state.json").read_text())["serial"] == 1


def test_resume_refuses_checkpoints_that_skip_a_dependency(project: Path) -> None:
    """Checkpoints marking a node done while its dependency is not were not written by a run
    (a node runs only after its dependencies): a located refusal, exit 2, never a crash."""
    configure(project, mode="resilient", adapterOptions={"failNodes": ["entity:ToDoTask"]})
    assert cli(project, "run", "--config=averos.config.json").returncode == 1
    journal = project / ".averos/checkpoints.json"
    text = journal.read_text()
    assert '"status":"SKIPPED"' in text  # the failed entity's dependents
    # same length: the journal's preallocated tail is left as it is
    journal.write_text(text.replace('"status":"SKIPPED"', '"status":"SUCCESS"', 1))
    configure(project, adapterOptions={})
    r = cli(project, "run", "--config=averos.config.json", "--resume")
    assert r.returncode == 2, r.stdout + r.stderr
    assert "but not its dependency entity:ToDoTask" in r.stderr and "--replan" in r.stderr
    assert "Traceback" not in r.stderr
    assert not (project / ".averos/state.json").exists()
