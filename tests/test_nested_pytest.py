"""tests/nested_pytest.py: a pytest run inside a test leaves the outer runs' numbered temporary
folders alone (pytest deletes all but the newest three of them when it numbers a new one)."""

from __future__ import annotations

import getpass
import os
import subprocess
import sys
from pathlib import Path

from tests.nested_pytest import run_pytest


def _earlier_runs(tmpdir: Path) -> Path:
    root = tmpdir / f"pytest-of-{getpass.getuser()}"
    for n in range(6):
        (root / f"pytest-{n}").mkdir(parents=True)
    return root


def _left(root: Path) -> list[str]:
    return sorted(p.name for p in root.iterdir() if not p.name.endswith("current"))


def test_a_nested_run_keeps_every_earlier_runs_folder(tmp_path: Path) -> None:
    suite, tmpdir = tmp_path / "suite", tmp_path / "tmp"
    suite.mkdir()
    (suite / "test_one.py").write_text("def test_one(tmp_path):\n    pass\n", encoding="utf-8")
    root = _earlier_runs(tmpdir)
    env = {**os.environ, "TMPDIR": str(tmpdir)}
    for name in ("PYTEST_XDIST_WORKER", "PYTEST_DEBUG_TEMPROOT", "PYTEST_ADDOPTS"):
        env.pop(name, None)  # PYTEST_DEBUG_TEMPROOT would win over TMPDIR

    run = run_pytest(["-q", "test_one.py"], cwd=suite, basetemp=tmp_path / "inner", env=env)
    assert run.returncode == 0, run.stdout + run.stderr
    assert _left(root) == [f"pytest-{n}" for n in range(6)]

    # The control: the same run without its own basetemp deletes the earlier folders.
    bare = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_one.py"],
        cwd=suite, env=env, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert bare.returncode == 0, bare.stdout + bare.stderr
    assert "pytest-0" not in _left(root), _left(root)
