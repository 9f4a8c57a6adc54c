"""SIGINT / SIGTERM: stop scheduling, let the running node finish, persist, exit 130."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from averos_ci.execute import CheckpointStatus, FileCheckpointStore
from tests.conftest import REPO_ROOT, copy_example, require_tool

COMMAND = [sys.executable, "-m", "averos_ci", "run", "--config=averos.config.json"]


def _project(tmp_path: Path, *, latency_ms: int) -> Path:
    project = copy_example(tmp_path / "p", mock=True)
    _set_latency(project, latency_ms)
    return project


def _set_latency(project: Path, latency_ms: int | None) -> None:
    config_path = project / "averos.config.json"
    config = json.loads(config_path.read_text())
    config["adapterOptions"] = {"latencyMs": latency_ms} if latency_ms is not None else {}
    config_path.write_text(json.dumps(config))


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(REPO_ROOT)}


def _start_and_wait_for(project: Path, status: bytes) -> subprocess.Popen[str]:
    """Start a run and return once a checkpoint with ``status`` has been written."""
    proc = subprocess.Popen(COMMAND, cwd=project, env=_env(), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)  # fmt: skip
    checkpoints = project / ".averos/checkpoints.json"
    deadline = time.monotonic() + 60
    while status not in (checkpoints.read_bytes() if checkpoints.exists() else b""):
        assert time.monotonic() < deadline and proc.poll() is None
        time.sleep(0.02)
    return proc


def _resume(project: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*COMMAND, "--resume"], cwd=project, env=_env(), capture_output=True,
                          text=True, timeout=120)  # fmt: skip


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_signal_persists_progress_and_exits_130(tmp_path: Path, sig: signal.Signals) -> None:
    project = _project(tmp_path, latency_ms=100)
    checkpoints = project / ".averos/checkpoints.json"
    proc = _start_and_wait_for(project, b'"SUCCESS"')
    proc.send_signal(sig)
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    assert f"interrupted by {sig.name}" in stderr and "--resume" in stderr
    log = FileCheckpointStore(checkpoints).read()
    statuses = [cp.status for cp in log.checkpoints.values()]
    assert CheckpointStatus.SUCCESS in statuses
    # the node running when the signal came was allowed to finish: nothing is left RUNNING
    assert CheckpointStatus.RUNNING not in statuses
    summary = json.loads((project / ".averos/logs/summary.json").read_text())
    assert summary["cancelled"] > 0 and summary["success"] is False
    assert not (project / ".averos/state.json").exists()
    resumed = _resume(project)
    assert resumed.returncode == 0, resumed.stderr


def test_second_signal_aborts_the_running_node(tmp_path: Path) -> None:
    project = _project(tmp_path, latency_ms=600_000)  # only an abort ends this node
    checkpoints = project / ".averos/checkpoints.json"
    proc = _start_and_wait_for(project, b'"RUNNING"')
    proc.send_signal(signal.SIGINT)
    time.sleep(0.3)
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=30)  # well before the 10 s grace period would end
    assert proc.returncode == 130, stderr
    log = FileCheckpointStore(checkpoints).read()
    assert [cp.status for cp in log.checkpoints.values()] == [CheckpointStatus.RUNNING]
    _set_latency(project, None)
    resumed = _resume(project)
    assert resumed.returncode == 0, resumed.stderr


SLOW_MODULE = """\
export default {
  async execute(node, context, state) {
    await new Promise(r => setTimeout(r, 600000));  // only an abort ends this node
    return { success: true, durationMs: 1 };
  },
};
"""


def test_second_signal_leaves_a_json_lines_adapters_node_interrupted(tmp_path: Path) -> None:
    """The adapter's JSON-lines child (a node-module host here, the schematics driver for
    Angular) is ended by the abort with the run's other commands; its node stays RUNNING
    (interrupted, run again by --resume), not FAILED by the child's exit."""
    require_tool("node", install="Node.js 18+")
    project = copy_example(tmp_path / "p", mock=True)
    (project / "slow.mjs").write_text(SLOW_MODULE)
    config_path = project / "averos.config.json"
    config = json.loads(config_path.read_text())
    config.update(adapter="node-module", adapterOptions={"module": "./slow.mjs"}, maxAttempts=2)
    config_path.write_text(json.dumps(config))
    proc = _start_and_wait_for(project, b'"RUNNING"')
    time.sleep(1.0)  # the host is started and executing the node
    proc.send_signal(signal.SIGINT)
    time.sleep(0.5)
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    assert "FAILED" not in stderr, stderr
    log = FileCheckpointStore(project / ".averos/checkpoints.json").read()
    assert [cp.status for cp in log.checkpoints.values()] == [CheckpointStatus.RUNNING]
    summary = json.loads((project / ".averos/logs/summary.json").read_text())
    assert summary["failed"] == 0, summary
