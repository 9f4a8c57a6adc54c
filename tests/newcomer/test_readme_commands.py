"""What a newcomer does first: clone the repository onto a machine with nothing else and run
README command 1 as written (read from the README between its ``newcomer:command-1`` markers,
never copied here). It must succeed, and running it again must change nothing.

The clone is of the committed HEAD, in a temporary folder with no neighbours (no ../shared).
Command 1 runs ``pip install .`` into a fresh venv: it needs the package index (a pip cache
under the averos-ci cache folder keeps re-runs fast).
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from averos_ci.execute.adapters.angular.options import cache_root
from tests.conftest import REPO_ROOT, git, require_tool

pytestmark = pytest.mark.slow

MARKED = re.compile(
    r"^<!-- newcomer:command-1\b[^>]*-->\n```bash\n(?P<body>.*?)^```\n<!-- /newcomer:command-1 -->",
    re.M | re.S,
)
# Resolved at import, with the real $HOME (each test gets an empty one).
PIP_CACHE = cache_root(None) / "pip"


def command_1(readme: str) -> str:
    found = MARKED.findall(readme)
    assert len(found) == 1, "README.md must mark command 1 exactly once (newcomer:command-1)"
    lines = [line for line in found[0].splitlines() if line and not line.startswith("#")]
    assert len(lines) == 1, lines
    return lines[0]


def test_command_1_is_the_install_and_run_line() -> None:
    command = command_1((REPO_ROOT / "README.md").read_text(encoding="utf-8"))
    assert command.startswith("python3 -m venv .venv && ") and "pip install ." in command
    assert "averos run --config=examples/todoapp/averos.config.json" in command


def test_readme_command_1_on_a_fresh_clone(tmp_path: Path) -> None:
    require_tool("git", install="apt-get install git")
    if git(REPO_ROOT, "rev-parse", "--is-inside-work-tree").strip() != "true":
        pytest.fail("the repository root is not a git checkout")
    clone = tmp_path / "averos-ci"
    git(tmp_path, "clone", "-q", str(REPO_ROOT), str(clone))
    assert not (tmp_path / "shared").exists()  # a real clone has no ../shared
    command = command_1((clone / "README.md").read_text(encoding="utf-8"))
    PIP_CACHE.mkdir(parents=True, exist_ok=True)
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("VIRTUAL_ENV", "PYTHONPATH", "CI", "GITHUB_ACTIONS")
    }
    # A newcomer's shell has no venv active: keep the project's .venv off PATH.
    env["PATH"] = os.pathsep.join(
        p for p in env["PATH"].split(os.pathsep) if not p.startswith(str(REPO_ROOT))
    )
    home = tmp_path / "home"  # the newcomer's own (tools on this machine may write there)
    home.mkdir()
    env.update(HOME=str(home), PIP_CACHE_DIR=str(PIP_CACHE), PIP_DISABLE_PIP_VERSION_CHECK="1")

    def run() -> subprocess.CompletedProcess[str]:
        return subprocess.run(["bash", "-c", command], cwd=clone, env=env, capture_output=True,
                              text=True, timeout=900)  # fmt: skip

    first = run()
    assert first.returncode == 0, first.stdout[-3000:] + first.stderr[-3000:]
    assert "Plan: 33 to create," in first.stdout + first.stderr
    assert "run succeeded (strict): 33 nodes, 33 succeeded" in first.stdout
    state = clone / "examples/todoapp/.averos/state.json"
    applied = state.read_bytes()

    second = run()
    assert second.returncode == 0, second.stdout[-3000:] + second.stderr[-3000:]
    assert "Plan: 0 to create, 0 to update, 33 unchanged" in second.stdout + second.stderr
    assert "run succeeded (strict): 0 nodes" in second.stdout
    assert state.read_bytes() == applied  # nothing changed, not even the state's serial
    # what command 1 leaves behind is ignored by git: the clone stays clean
    assert git(clone, "status", "--porcelain", "--untracked-files=all").strip() == ""
