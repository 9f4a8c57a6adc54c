"""The suite's xdist groups hold: tests that share a costly session fixture run on one worker
(tests/conftest.py adds the marks; ``.ci/run`` runs ``-n 4 --dist loadgroup``). pytest 9.2
silently stopped xdist from honouring the marks (pytest-dev/pytest-xdist#1386): this test is
what notices such a break."""

from __future__ import annotations

import os
from pathlib import Path

from tests.nested_pytest import run_pytest

CONFTEST = """\
import os

import pytest

from tests.conftest import pytest_collection_modifyitems  # noqa: F401 (the hook under test)


@pytest.fixture(scope="session")
def docker_host(tmp_path_factory):
    return os.environ["PYTEST_XDIST_WORKER"]
"""
GROUPED = """\
import time


def test_{name}_1(docker_host, tmp_path):
    time.sleep(0.3)
    open("{out}/{name}_1", "w").write(docker_host)


def test_{name}_2(docker_host):
    time.sleep(0.3)
    open("{out}/{name}_2", "w").write(docker_host)
"""


def test_tests_sharing_a_session_fixture_run_on_one_worker(tmp_path: Path) -> None:
    suite, out = tmp_path / "suite", tmp_path / "out"
    suite.mkdir()
    out.mkdir()
    (suite / "conftest.py").write_text(CONFTEST, encoding="utf-8")
    for name in ("a", "b", "c"):
        text = GROUPED.format(name=name, out=out)
        (suite / f"test_{name}.py").write_text(text, encoding="utf-8")
    proc = run_pytest(
        ["-q", "-n", "3", "--dist", "loadgroup", "--rootdir", str(suite), str(suite)],
        cwd=suite, basetemp=tmp_path / "inner", env=os.environ,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    workers = {p.name: p.read_text(encoding="utf-8") for p in out.iterdir()}
    assert len(workers) == 6, workers
    assert len(set(workers.values())) == 1, f"the 'docker' group ran on several workers: {workers}"
