"""Every bench's check can fail: its quick mode with ``--targets-scale 0.001`` (every target
impossible) exits 1 and names the missed figure; and the table, the benches and ``.ci/run``
agree (a new bench without a target, or one CI does not run, fails here)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from averos_ci.execute.adapters.angular.options import cache_root
from bench._targets import BENCHES, TARGETS
from tests.conftest import REPO_ROOT, require_tool

BENCH_DIR = REPO_ROOT / "bench"
# Resolved at import, with the real $HOME (each test gets an empty one): the Angular benches
# need the warm template cache, as .ci/run builds it.
CACHE = cache_root(None)
NODE = {"angular_adapter", "first_generation", "regen_cycle", "apply_cycle", "command_one"}
# The smallest sizes each bench accepts in its quick mode: the check is the point, not the
# figure (keep the suite cheap).
SMALLEST: dict[str, list[str]] = {
    "validate": ["--runs", "1"],
    "plan_scale": ["--runs", "1"],
    "engine_overhead": ["--runs", "1"],
    "parallel_applies": ["--projects", "2", "--runs", "1"],
    "projects_changed": ["--runs", "1"],
}


def bench_names() -> list[str]:
    return sorted(p.stem for p in BENCH_DIR.glob("*.py") if not p.name.startswith("_"))


def test_every_bench_has_its_row_and_targets_and_every_row_a_bench() -> None:
    assert sorted(b.name for b in BENCHES) == bench_names()
    for bench in BENCHES:
        rows = [t for t in TARGETS if t.bench == bench.name]
        assert any(t.quick is not None for t in rows), f"{bench.name}: nothing checked in quick"
        assert any(t.full is not None for t in rows), f"{bench.name}: nothing checked in full"
    for t in TARGETS:
        assert t.op in {"<=", ">="}, t.key
        assert t.key.startswith(f"{t.bench}."), t.key
    assert len({t.key for t in TARGETS}) == len(TARGETS)


def test_ci_runs_every_bench_in_its_quick_mode() -> None:
    script = (REPO_ROOT / ".ci" / "run").read_text(encoding="utf-8")
    ran = re.findall(r"^\s*run_bench bench/(\w+)\.py$", script, flags=re.M)
    assert sorted(ran) == bench_names()


@pytest.mark.slow
@pytest.mark.parametrize(
    "name",
    [pytest.param(n, marks=[pytest.mark.angular] if n in NODE else []) for n in bench_names()],
)
def test_an_impossible_target_fails_the_bench(name: str, tmp_path: Path) -> None:
    if name in NODE or name == "node_adapter":
        require_tool("node", install="Node.js 18+ (.ci/run: the Angular template)")
    bin_dir = str(Path(sys.executable).parent)  # averos-ci of this environment
    home = tmp_path / "home"  # the bench's tools (uv, pip, npm) may write there: not the test's
    home.mkdir()
    env = {
        **os.environ,
        "HOME": str(home),
        "PATH": bin_dir + os.pathsep + os.environ.get("PATH", ""),
        "AVEROS_CI_CACHE_DIR": str(CACHE),
        "npm_config_cache": str(CACHE / "npm"),
        "NG_CLI_ANALYTICS": "false",
    }
    proc = subprocess.run(
        [
            sys.executable,
            str(BENCH_DIR / f"{name}.py"),
            "--quick",
            *SMALLEST.get(name, []),
            "--targets-scale",
            "0.001",
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO_ROOT,
        check=False,
        timeout=900,
    )
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out[-4000:]
    checked = [t.key for t in TARGETS if t.bench == name and t.quick is not None]
    # every figure the quick mode checks is named as missed, with by how much
    for key in checked:
        assert re.search(rf"{re.escape(key)} = \S+ \S+ MISSED its quick tolerance", out), (
            key,
            out[-4000:],
        )
    assert "over by" in out or "under by" in out
