"""Crash test: ``averos-ci run`` is SIGKILLed part-way, then resumed.

A round counts only when its kill provably landed mid-run: the journal (checkpoints.json),
read just before the kill, holds at least one SUCCESS record and is not ``completed``, and
the process died of the SIGKILL (it had not exited). A draw that misses (the run finished
first, or nothing was durable yet) is drawn again, not counted. Each counted round asserts:
no file is torn, the resumed run starts exactly the nodes that were not durably SUCCESS (none
of those is started again), and the final state and summary equal an uninterrupted run's.

AVEROS_CI_CRASH_ROUNDS sets the number of counted rounds (default 20 under CI, else 5; .ci/run
sets 20); AVEROS_CI_CRASH_SEED makes the draws reproducible.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from averos_ci.execute import CheckpointStatus, FileCheckpointStore, parse_event
from averos_ci.execute.checkpoints import CheckpointLog
from averos_ci.state import FileStateStore
from tests.conftest import REPO_ROOT, copy_example, in_ci

ROUNDS = int(os.environ.get("AVEROS_CI_CRASH_ROUNDS", "20" if in_ci() else "5"))
MAX_DRAWS = 5 * ROUNDS + 20
SEED = int(os.environ.get("AVEROS_CI_CRASH_SEED", str(random.randrange(1 << 30))))
ENV = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
RUN = [sys.executable, "-m", "averos_ci", "run", "--config=averos.config.json"]


def make_project(root: Path, latency_ms: int) -> Path:
    copy_example(root, mock=True)
    config = json.loads((root / "averos.config.json").read_text())
    config.update(adapterOptions={"latencyMs": latency_ms}, maxAttempts=1)
    (root / "averos.config.json").write_text(json.dumps(config))
    return root


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


def journal(project: Path) -> CheckpointLog:
    return FileCheckpointStore(project / ".averos/checkpoints.json").read()


def succeeded(log: CheckpointLog) -> set[str]:
    return {k for k, v in log.checkpoints.items() if v.status is CheckpointStatus.SUCCESS}


def assert_nothing_torn(project: Path) -> CheckpointLog:
    """Every persisted file loads (a torn one raises); returns the journal."""
    FileStateStore(project / ".averos/state.json").load()
    summary = project / ".averos/logs/summary.json"
    if summary.exists():
        json.loads(summary.read_text())
    return journal(project)


def started_by_run(project: Path, run_ids: set[str]) -> list[str]:
    """NODE_STARTED node ids of the runs not in ``run_ids`` (the event log is best-effort: a
    line a kill cut short is skipped)."""
    path = project / ".averos/logs/events.jsonl"
    started = []
    for line in path.read_text().splitlines() if path.exists() else []:
        try:
            event = parse_event(line)
        except ValueError:
            continue
        if event.run_id not in run_ids and event.type.value == "NODE_STARTED":
            started.append(event.node_id)
    return started


def run_ids(project: Path) -> set[str]:
    path = project / ".averos/logs/events.jsonl"
    ids = set()
    for line in path.read_text().splitlines() if path.exists() else []:
        try:
            ids.add(parse_event(line).run_id)
        except ValueError:
            continue
    return ids


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], dict[str, Any]]:
    project = make_project(tmp_path_factory.mktemp("reference") / "p", latency_ms=0)
    r = subprocess.run(RUN, cwd=project, env=ENV, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return comparable_state(project), comparable_summary(project)


def kill_mid_run(project: Path, rng: random.Random, total: int) -> tuple[set[str], str] | None:
    """Start a run, SIGKILL it once the journal shows ``target`` SUCCESS records; returns the
    durable set read before the kill and a description of the kill point, or None (a miss)."""
    target = rng.randint(1, total - 1)
    extra = rng.choice([0.0, 0.0, 0.001, 0.003])  # sometimes land in the next record's I/O
    proc = subprocess.Popen(RUN, cwd=project, env=ENV, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)  # fmt: skip
    started = time.monotonic()
    before: set[str] = set()
    try:
        while proc.poll() is None and time.monotonic() - started < 120:
            log = journal(project)
            before = succeeded(log)
            if log.completed:
                break
            if len(before) >= target:
                time.sleep(extra)
                proc.send_signal(signal.SIGKILL)
                break
            time.sleep(0.002)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
    killed_ms = (time.monotonic() - started) * 1000
    if proc.returncode != -signal.SIGKILL or not before:
        return None  # the run ended first, or nothing was durable yet: draw again
    after = assert_nothing_torn(project)
    if after.completed:
        return None  # only the clean-up was left: not a mid-run kill
    point = (f"{len(before)}/{total} SUCCESS read before the kill (target {target}, "
             f"+{extra * 1000:.0f} ms), {len(succeeded(after))} after, ~{killed_ms:.0f} ms "
             f"after start")  # fmt: skip
    return succeeded(after), point


@pytest.mark.slow
def test_sigkill_mid_run_then_resume(
    tmp_path: Path,
    reference: tuple[dict[str, Any], dict[str, Any]],
    capsys: pytest.CaptureFixture[str],
) -> None:
    expected_state, expected_summary = reference
    total = len(expected_state["nodes"])
    assert total >= 2
    rng = random.Random(SEED)
    counted = draws = 0
    while counted < ROUNDS:
        draws += 1
        assert draws <= MAX_DRAWS, f"seed {SEED}: only {counted} of {ROUNDS} kills landed"
        latency = rng.choice([0, 2, 8])  # 0: the kill mostly lands in checkpoint I/O
        project = make_project(tmp_path / f"draw{draws}", latency_ms=latency)
        kill = kill_mid_run(project, rng, total)
        if kill is None:
            continue
        durable, point = kill
        old_runs = run_ids(project)
        resumed = subprocess.run([*RUN, "--resume"], cwd=project, env=ENV, capture_output=True,
                                 text=True, timeout=120)  # fmt: skip
        assert resumed.returncode == 0, f"seed {SEED}: {resumed.stderr}"
        assert_nothing_torn(project)
        started = started_by_run(project, old_runs)
        assert not set(started) & durable, f"seed {SEED}: re-ran {set(started) & durable}"
        assert sorted(started) == sorted(set(expected_state["nodes"]) - durable), f"seed {SEED}"
        assert comparable_state(project) == expected_state, f"seed {SEED}"
        assert comparable_summary(project) == expected_summary, f"seed {SEED}"
        assert not (project / ".averos/checkpoints.json").exists()
        counted += 1
        with capsys.disabled():
            print(f"\ncrash round {counted}/{ROUNDS} (draw {draws}, latency {latency} ms): {point}")
    assert counted == ROUNDS
    with capsys.disabled():
        print(f"\ncrash: {counted} counted kills in {draws} draws (seed {SEED})")
