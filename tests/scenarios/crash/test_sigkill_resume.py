"""Crash tests: ``averos-ci run`` is SIGKILLed at random moments, then resumed.

Each round starts from a fresh copy of examples/todoapp and kills ``run --resume`` again and
again until one run completes. After every kill: no file is torn (state, checkpoints and
summary all load), and the next run starts no node whose SUCCESS checkpoint was durable.
The final state and summary equal those of an uninterrupted run.

AVEROS_CI_CRASH_ROUNDS (default 6) and AVEROS_CI_CRASH_SEED make it longer / reproducible.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from averos_ci.execute import CheckpointStatus, FileCheckpointStore, parse_event
from averos_ci.state import FileStateStore

REPO_ROOT = Path(__file__).resolve().parents[3]
EXAMPLE = REPO_ROOT / "examples" / "todoapp"
ROUNDS = int(os.environ.get("AVEROS_CI_CRASH_ROUNDS", "6"))
MAX_KILLS = 40
SEED = int(os.environ.get("AVEROS_CI_CRASH_SEED", str(random.randrange(1 << 30))))
ENV = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}


def make_project(root: Path, latency_ms: int) -> Path:
    shutil.copytree(EXAMPLE, root)
    config = json.loads((root / "averos.config.json").read_text())
    config.update(adapterOptions={"latencyMs": latency_ms}, maxAttempts=1)
    (root / "averos.config.json").write_text(json.dumps(config))
    return root


def start(project: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "averos_ci", "run", "--config=averos.config.json", "--resume"],
        cwd=project, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip


def comparable_state(project: Path) -> dict[str, Any]:
    state = FileStateStore(project / ".averos/state.json").load()
    assert state is not None
    return {
        "serial": state.serial,
        "manifestHash": state.manifest_hash,
        "manifest": state.manifest,
        "nodes": {k: v.args_hash for k, v in state.node_states.items()},
    }


def comparable_summary(project: Path) -> dict[str, Any]:
    summary = json.loads((project / ".averos/logs/summary.json").read_text())
    summary.pop("durationMs")
    return dict(summary)


def read_events(project: Path) -> list[Any]:
    path = project / ".averos/logs/events.jsonl"
    if not path.exists():
        return []
    events = []
    for line in path.read_text().splitlines():
        try:
            events.append(parse_event(line))
        except ValueError:
            continue  # the line a kill cut short; the event log is best-effort
    return events


def assert_nothing_torn(project: Path) -> set[str]:
    """Every file loads; returns the nodes whose SUCCESS checkpoint is durable."""
    FileStateStore(project / ".averos/state.json").load()
    summary = project / ".averos/logs/summary.json"
    if summary.exists():
        json.loads(summary.read_text())
    log = FileCheckpointStore(project / ".averos/checkpoints.json").read()
    return {k for k, v in log.checkpoints.items() if v.status is CheckpointStatus.SUCCESS}


def finished(project: Path) -> bool:
    return (project / ".averos/state.json").exists() and not (
        project / ".averos/checkpoints.json").exists()  # fmt: skip


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], dict[str, Any]]:
    project = make_project(tmp_path_factory.mktemp("reference") / "p", latency_ms=0)
    command = [sys.executable, "-m", "averos_ci", "run", "--config=averos.config.json"]
    r = subprocess.run(command, cwd=project, env=ENV, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return comparable_state(project), comparable_summary(project)


@pytest.mark.slow
@pytest.mark.parametrize("round_no", range(ROUNDS))
def test_sigkill_at_random_moments_then_resume(
    tmp_path: Path, reference: tuple[dict[str, Any], dict[str, Any]], round_no: int
) -> None:
    rng = random.Random(SEED + round_no)
    latency = rng.choice([0, 2, 8])  # 0: the kill mostly lands in checkpoint I/O
    project = make_project(tmp_path / "p", latency_ms=latency)
    kills = 0
    resumed_from: list[int] = []
    for attempt in range(MAX_KILLS + 1):
        durable = assert_nothing_torn(project)
        seen_runs = {e.run_id for e in read_events(project)}
        if durable:
            resumed_from.append(len(durable))
        proc = start(project)
        # the last attempt is not killed: a loaded machine may start slower than the window
        window = rng.uniform(0.05, 0.8) if attempt < MAX_KILLS else 120.0
        try:
            proc.wait(timeout=window)
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            kills += 1
        stderr = proc.stderr.read().decode() if proc.stderr else ""
        if proc.stderr:
            proc.stderr.close()
        assert proc.returncode in (0, -signal.SIGKILL), f"seed {SEED}: {stderr}"
        rerun = {
            e.node_id for e in read_events(project)
            if e.run_id not in seen_runs and e.type.value == "NODE_STARTED"
        }  # fmt: skip
        assert not rerun & durable, f"seed {SEED}: re-ran durable nodes {rerun & durable}"
        if proc.returncode == 0 or finished(project):
            break
        time.sleep(0.01)
    else:
        pytest.fail(f"seed {SEED}: the run never completed")
    assert_nothing_torn(project)
    if not finished(project):  # killed between the state save and the clean-up: resume it
        assert start(project).wait(timeout=120) == 0
    expected_state, expected_summary = reference
    assert comparable_state(project) == expected_state, f"seed {SEED}, {kills} kills"
    assert comparable_summary(project) == expected_summary, f"seed {SEED}, {kills} kills"
    assert not (project / ".averos/checkpoints.json").exists()
    print(
        f"round {round_no}: seed {SEED}, latency {latency} ms, {kills} kills, "
        f"{len(resumed_from)} kills after durable progress"
    )
