"""tests/cpu_profile.py: each test's CPU, its own and its waited-for children's, one JSON line
per test; ``python -m tests.cpu_profile`` ranks them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.nested_pytest import run_pytest

REPO = Path(__file__).resolve().parents[1]

SAMPLE = """
import subprocess, sys

import pytest

@pytest.fixture(scope="session")
def engine():  # like the Docker engine: its cost comes due when the session ends
    yield
    subprocess.run([sys.executable, "-c", "sum(range(8_000_000))"], check=True)

def test_spins(engine):
    n = 0
    for i in range(3_000_000):
        n += i

def test_child_spins():
    subprocess.run([sys.executable, "-c", "sum(range(20_000_000))"], check=True)

def test_idle():
    pass
"""


def run_sample(folder: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    args = ["-q", "-p", "tests.cpu_profile", "test_sample.py"]
    return run_pytest(args, cwd=folder, basetemp=folder.parent / f"{folder.name}-inner", env=env)


def test_each_test_gets_its_own_and_its_childrens_cpu(tmp_path: Path) -> None:
    (tmp_path / "test_sample.py").write_text(SAMPLE, encoding="utf-8")
    out = tmp_path / "cpu"
    env = {**os.environ, "AVEROS_CI_TEST_CPU": str(out)}
    env.pop("PYTEST_XDIST_WORKER", None)
    run = run_sample(tmp_path, env)
    assert run.returncode == 0, run.stdout + run.stderr
    records = {
        r["test"]: r
        for r in map(json.loads, (out / "main.jsonl").read_text(encoding="utf-8").splitlines())
    }
    names = ("test_spins", "test_child_spins", "test_idle")
    spins, child, idle = (records[f"test_sample.py::{n}"] for n in names)
    assert spins["cpu"] > idle["cpu"] and spins["childrenCpu"] < 0.05
    assert child["childrenCpu"] > 0.1 and child["childrenCpu"] > child["cpu"]
    # the session fixture's teardown runs after the last test, and is not charged to it
    teardown = records["session teardown (after test_sample.py::test_idle)"]
    assert teardown["session"] is True and teardown["childrenCpu"] > 0.05
    assert idle["childrenCpu"] < 0.05, idle
    assert all(r["wall"] >= 0 for r in records.values())

    report = subprocess.run(
        [sys.executable, "-m", "tests.cpu_profile", str(out), "5"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    )
    lines = report.stdout.splitlines()
    assert lines[1].endswith("test_sample.py::test_child_spins"), report.stdout  # the costliest
    assert lines[-1].startswith("3 tests and 1 session teardown(s): "), report.stdout
    assert any(line.endswith("  (session teardowns)") for line in lines), report.stdout


def test_without_the_variable_nothing_is_written(tmp_path: Path) -> None:
    (tmp_path / "test_sample.py").write_text("def test_a():\n    pass\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "AVEROS_CI_TEST_CPU"}
    run = run_sample(tmp_path, env)
    assert run.returncode == 0, run.stdout + run.stderr
    assert sorted(p.name for p in tmp_path.iterdir() if p.name != "__pycache__") == [
        "test_sample.py"
    ]
