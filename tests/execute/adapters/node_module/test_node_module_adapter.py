"""The node-module adapter runs Averos ExecutionAdapter modules (examples/node-adapter)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from averos_ci.config import load_config
from averos_ci.errors import ConfigError, ToolchainError
from averos_ci.execute import CheckpointStatus, FileCheckpointStore
from averos_ci.planning import apply
from tests.execute.adapters.node_module.conftest import CLI, REPO, require, run_cli
from tests.processes import gone_within

Project = Callable[..., Path]

RECORDING = """\
import Example from './my-adapter.mjs';
import { appendFileSync } from 'node:fs';
// The example, noting each node it is asked to execute (one line per call).
export default class Recording extends Example {
  async execute(node, context, state) {
    appendFileSync(new URL('./executed.txt', import.meta.url), node.id + '\\n');
    return super.execute(node, context, state);
  }
}
"""

MISBEHAVING = """\
// A node whose id names what goes wrong: throws, crashes, hangs, or leaks env.
export const adapter = {
  async execute(node, context, state) {
    if (node.id === 'entity:ToDoTask') throw new TypeError('cannot read the entity spec');
    if (node.id === 'entity:ToDoArea' && process.env.CRASH) {
      process.stderr.write('segfault-ish: the native module blew up\\n');
      process.exit(7);
    }
    if (node.id === 'page:AboutPage' && process.env.HANG) return new Promise(() => {});
    return { success: true, durationMs: 1 };
  },
};
"""


def executable_ids(project: Path) -> list[str]:
    config = load_config(project / "averos.config.json")
    from averos_ci.plan import compute_plan

    plan = compute_plan(manifest_path=config.manifest_path, state=None).plan
    return [n.id for n in plan.executable_nodes()]


def test_example_module_runs_the_whole_plan(project: Project) -> None:
    root = project()
    proc = run_cli(root)
    assert proc.returncode == 0, proc.stderr
    ids = executable_ids(root)
    generated = sorted(p.name for p in (root / "app" / "generated").iterdir())
    assert len(generated) == len(ids) == 33
    task = json.loads((root / "app/generated/entity_ToDoTask.json").read_text())
    assert task["command"] == "averos-entity" and task["args"]["name"] == "ToDoTask"
    summary = json.loads((root / "logs/summary.json").read_text())
    assert summary["succeeded"] == 33 and summary["success"] is True
    # the module's console output lands in the node's log, not on the protocol stream
    log = next((root / "logs/nodes").glob("entity_ToDoTask.*.log")).read_text()
    assert "wrote generated/entity_ToDoTask.json" in log
    state = json.loads((root / ".averos/state.json").read_text())
    assert set(state["nodeStates"]) >= set(ids)


def test_failure_is_reported_with_the_modules_message(project: Project) -> None:
    root = project(maxAttempts=2)
    proc = run_cli(root, env={"AVEROS_EXAMPLE_FAIL": "entity:ToDoTask"})
    assert proc.returncode == 1
    message = "refusing entity:ToDoTask (AVEROS_EXAMPLE_FAIL)"
    assert message in proc.stdout + proc.stderr
    summary = json.loads((root / "logs/summary.json").read_text())
    [failure] = summary["failures"]
    assert failure["nodeId"] == "entity:ToDoTask" and failure["attempts"] == 2
    assert failure["failure"] == {
        "code": "NODE_MODULE_FAILURE",
        "message": message,
        "retryable": True,
        "details": None,
    }
    checkpoints = FileCheckpointStore(root / ".averos/checkpoints.json").load()
    assert checkpoints["entity:ToDoTask"].status is CheckpointStatus.FAILED
    assert checkpoints["entity:ToDoArea"].status is CheckpointStatus.SUCCESS
    # a dependent is skipped, not run
    assert checkpoints["use-case:SearchToDoTask"].status is CheckpointStatus.SKIPPED


def test_thrown_error_crash_and_hang(project: Project) -> None:
    root = project(module="misbehaving.mjs", adapterOptions={"export": "adapter"})
    (root / "misbehaving.mjs").write_text(MISBEHAVING)
    config = json.loads((root / "averos.config.json").read_text())
    config["adapterOptions"]["callTimeoutMs"] = 1500
    (root / "averos.config.json").write_text(json.dumps(config))

    proc = run_cli(root, env={"CRASH": "1", "HANG": "1"})

    assert proc.returncode == 1, proc.stderr
    failures = {
        f["nodeId"]: f["failure"]
        for f in json.loads((root / "logs/summary.json").read_text())["failures"]
    }
    assert set(failures) == {"entity:ToDoTask", "entity:ToDoArea", "page:AboutPage"}
    thrown = failures["entity:ToDoTask"]
    assert (thrown["code"], thrown["message"]) == ("ADAPTER_THREW", "cannot read the entity spec")
    assert "TypeError" in thrown["details"]
    crashed = failures["entity:ToDoArea"]
    assert crashed["code"] == "ADAPTER_ERROR" and "exit code 7" in crashed["message"]
    assert "the native module blew up" in crashed["details"]
    area_log = next((root / "logs/nodes").glob("entity_ToDoArea.*.log")).read_text()
    assert "the native module blew up" in area_log  # the host's stderr, in the node log
    hung = failures["page:AboutPage"]
    assert hung["code"] == "ADAPTER_ERROR" and "did not answer within 1.5 s" in hung["message"]
    # after the crash a new host ran the remaining independent nodes
    summary = json.loads((root / "logs/summary.json").read_text())
    assert summary["succeeded"] > 0


def test_tokens_do_not_reach_the_module(project: Project) -> None:
    root = project(module="env-report.mjs")
    (root / "env-report.mjs").write_text(
        "import { writeFileSync } from 'node:fs';\n"
        "export default { execute(node) {\n"
        "  writeFileSync(new URL('./env.json', import.meta.url), JSON.stringify(process.env));\n"
        "  return { success: true, durationMs: 0 };\n"
        "} };\n"
    )
    proc = run_cli(root, env={"GITHUB_TOKEN": "ghs_secret", "INPUT_TOKEN": "x", "HARMLESS": "kept"})
    assert proc.returncode == 0, proc.stderr
    env = json.loads((root / "env.json").read_text())
    assert env["HARMLESS"] == "kept"
    assert "GITHUB_TOKEN" not in env and "INPUT_TOKEN" not in env
    assert "ghs_secret" not in (root / "env.json").read_text()


@pytest.mark.parametrize(
    ("module", "message"),
    [
        ("../outside.mjs", "outside"),
        ("link.mjs", "outside"),
        ("missing.mjs", "no such file"),
        ("my-adapter.ts", "not a JavaScript file"),
    ],
)
def test_module_path_is_confined_to_the_config_folder(
    project: Project, tmp_path: Path, module: str, message: str
) -> None:
    root = project(module=module)
    (tmp_path / "outside.mjs").write_text("export default {execute() {}}\n")
    (root / "link.mjs").symlink_to(tmp_path / "outside.mjs")
    proc = run_cli(root)
    assert proc.returncode == 2
    assert message in proc.stderr and "hint:" in proc.stderr
    assert not (root / "app").exists()


def test_a_broken_module_fails_before_anything_is_written(project: Project) -> None:
    root = project(module="broken.mjs")
    (root / "broken.mjs").write_text("export default class { notExecute() {} }\n")
    with pytest.raises(ToolchainError, match="not an ExecutionAdapter"):
        apply(load_config(root / "averos.config.json"))
    assert not (root / ".averos/checkpoints.json").exists()
    (root / "broken.mjs").write_text("export default {{{ syntax error\n")
    proc = run_cli(root)
    assert proc.returncode == 2 and "SyntaxError" in proc.stderr


def test_unknown_adapter_option_is_a_config_error(project: Project) -> None:
    root = project(adapterOptions={"modul": "x"})
    with pytest.raises(ConfigError, match="modul"):
        apply(load_config(root / "averos.config.json"))


def test_typescript_adapter_compiled_with_tsc(project: Project) -> None:
    tsc = require("tsc", os.environ.get("AVEROS_CI_TSC"))
    root = project(module="dist/my-adapter.js")
    compiled = subprocess.run(
        # @types/node is installed beside tsc (.ci/node-tools), not in the project
        [tsc, "-p", "tsconfig.json", "--typeRoots", str(Path(tsc).parent.parent / "@types")],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    assert compiled.returncode == 0, compiled.stdout + compiled.stderr
    proc = run_cli(root)
    assert proc.returncode == 0, proc.stderr
    assert len(list((root / "app/generated").iterdir())) == 33
    proc = run_cli(root, "--replan", env={"AVEROS_EXAMPLE_FAIL": "entity:ToDoArea"})
    assert proc.returncode == 0  # nothing changed: nothing to execute


def test_sigkill_then_resume_reruns_only_unfinished_nodes(project: Project) -> None:
    root = project(module="recording.mjs")
    (root / "recording.mjs").write_text(RECORDING)
    env = {**os.environ, "PYTHONPATH": str(REPO), "AVEROS_EXAMPLE_DELAY_MS": "150"}
    first = subprocess.Popen(
        [*CLI, "run", "--config=averos.config.json"],
        cwd=root,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    store = FileCheckpointStore(root / ".averos/checkpoints.json")
    deadline = time.monotonic() + 60
    done: set[str] = set()
    while time.monotonic() < deadline and len(done) < 5:
        time.sleep(0.05)
        if (root / ".averos/checkpoints.json").exists():
            done = {k for k, v in store.load().items() if v.status is CheckpointStatus.SUCCESS}
    first.send_signal(signal.SIGKILL)
    first.wait()
    assert 5 <= len(done) < 33
    # the orphaned module host finishes the node it was given (not checkpointed: the resume
    # runs it again) and ends at the end of its stdin: no line of the first run lands after this
    host = json.loads((root / "app/.averos-ci/child.json").read_text())["pgid"]
    assert gone_within(host, 30), "the orphaned module host did not end with its stdin"
    done = {k for k, v in store.load().items() if v.status is CheckpointStatus.SUCCESS}
    before = (root / "executed.txt").read_text().splitlines()
    (root / "executed.txt").unlink()

    proc = run_cli(root, "--resume", env={"AVEROS_EXAMPLE_DELAY_MS": "0"})

    assert proc.returncode == 0, proc.stderr
    rerun = (root / "executed.txt").read_text().splitlines()
    ids = executable_ids(root)
    assert set(rerun) == set(ids) - done  # only the unfinished nodes, through the module
    assert len(rerun) == len(set(rerun))
    assert set(before) | set(rerun) == set(ids)
    assert len(list((root / "app/generated").iterdir())) == 33
    assert not (root / "app/.averos-ci/child.json").exists()  # the orphan host was ended


def test_dry_run_reaches_the_module_and_writes_nothing(project: Project) -> None:
    root = project()
    proc = run_cli(root, "--dry-run")
    assert proc.returncode == 0, proc.stderr
    assert not (root / "app" / "generated").exists()  # the module saw context.dryRun
    assert not (root / ".averos/state.json").exists()


def test_time_limit_interrupts_then_resume_finishes(project: Project) -> None:
    root = project(module="recording.mjs", timeoutMs=600)
    (root / "recording.mjs").write_text(RECORDING)
    proc = run_cli(root, env={"AVEROS_EXAMPLE_DELAY_MS": "250"})
    assert proc.returncode == 130, proc.stderr
    first = (root / "executed.txt").read_text().splitlines()
    assert 0 < len(first) < 33
    config = json.loads((root / "averos.config.json").read_text())
    del config["timeoutMs"]
    (root / "averos.config.json").write_text(json.dumps(config))
    proc = run_cli(root, "--resume")
    assert proc.returncode == 0, proc.stderr
    everything = (root / "executed.txt").read_text().splitlines()
    assert set(everything) == set(executable_ids(root))
    assert len(everything) - len(first) == 33 - len(set(first))  # finished nodes not re-run
