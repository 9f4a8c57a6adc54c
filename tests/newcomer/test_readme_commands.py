"""What a newcomer does first: clone the repository onto a machine with nothing else and run
README command 1 as written (read from the README between its ``newcomer:command-1`` markers,
never copied here). It must succeed, and running it again must change nothing.

The clone is of the committed HEAD, in a temporary folder with no neighbours (no ../shared).
Command 1 runs ``pip install '.[node]'`` into a fresh venv: it needs the package index (a pip
cache under the averos-ci cache folder keeps re-runs fast). It generates the real Angular
application, with a PATH that has no ``node``, ``npm`` or ``npx``: the Node.js from PyPI is
what runs. The warm caches of this machine (npm's, the Angular template's) are used, so
Angular is not downloaded again; ``bench/command_one.py`` measures a clean machine.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Iterator
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
CACHE = cache_root(None)
PIP_CACHE = CACHE / "pip"
NODE_TOOLS = frozenset({"node", "nodejs", "npm", "npx", "corepack"})
APP = "examples/todoapp/workspace"


def command_1(readme: str) -> str:
    found = MARKED.findall(readme)
    assert len(found) == 1, "README.md must mark command 1 exactly once (newcomer:command-1)"
    lines = [line for line in found[0].splitlines() if line and not line.startswith("#")]
    assert len(lines) == 1, lines
    return lines[0]


def test_command_1_is_the_install_and_run_line() -> None:
    command = command_1((REPO_ROOT / "README.md").read_text(encoding="utf-8"))
    assert command.startswith("python3 -m venv .venv && ") and "pip install '.[node]'" in command
    assert "averos run --config=examples/todoapp/averos.config.json" in command


def path_without_node(folder: Path, path: str) -> str:
    """A PATH with every program of ``path`` (the first of each name) but node, npm, npx:
    links in ``folder``, since /usr/bin holds python3, git and bash beside node."""
    folder.mkdir()
    for directory in path.split(os.pathsep):
        for program in _programs(Path(directory)):
            link = folder / program.name
            if program.name not in NODE_TOOLS and not link.is_symlink():
                link.symlink_to(program)
    return str(folder)


def _programs(directory: Path) -> Iterator[Path]:
    try:
        entries = list(directory.iterdir())
    except OSError:
        return
    yield from (p for p in entries if p.is_file() and os.access(p, os.X_OK))


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
        if key not in ("VIRTUAL_ENV", "PYTHONPATH", "CI", "GITHUB_ACTIONS", "npm_config_cache")
    }
    # A newcomer's shell has no venv active (keep the project's .venv off PATH) and, here, no
    # Node.js: node, npm and npx are not on PATH, so Node.js from PyPI runs.
    searched = os.pathsep.join(
        p for p in env["PATH"].split(os.pathsep) if not p.startswith(str(REPO_ROOT))
    )
    env["PATH"] = path_without_node(tmp_path / "bin", searched)
    home = tmp_path / "home"  # the newcomer's own (tools on this machine may write there)
    home.mkdir()
    env.update(HOME=str(home), PIP_CACHE_DIR=str(PIP_CACHE), PIP_DISABLE_PIP_VERSION_CHECK="1",
               AVEROS_CI_CACHE_DIR=str(CACHE))  # fmt: skip

    def run() -> subprocess.CompletedProcess[str]:
        return subprocess.run(["bash", "-c", command], cwd=clone, env=env, capture_output=True,
                              text=True, timeout=1800)  # fmt: skip

    for tool in ("node", "npm", "npx"):  # so a success proves Node.js from PyPI ran
        assert subprocess.run(["bash", "-c", f"command -v {tool}"], env=env).returncode != 0
    first = run()
    output = first.stdout + first.stderr
    assert first.returncode == 0, first.stdout[-3000:] + first.stderr[-3000:]
    assert "Plan: 33 to create," in output
    assert "run succeeded (strict): 33 nodes, 33 succeeded" in first.stdout
    assert "averos-ci preview --config examples/todoapp/averos.config.json" in first.stdout
    app = clone / APP
    assert (app / "src/app/app.module.ts").is_file()
    models = list(app.glob("src/app/**/to-do-task*.ts"))
    assert models, sorted(str(p.relative_to(app)) for p in app.glob("src/app/**/*.ts"))[:40]
    state = clone / "examples/todoapp/.averos/angular/state.json"
    applied = state.read_bytes()

    second = run()
    assert second.returncode == 0, second.stdout[-3000:] + second.stderr[-3000:]
    assert "Plan: 0 to create, 0 to update, 33 unchanged" in second.stdout + second.stderr
    assert "run succeeded (strict): 0 nodes" in second.stdout
    assert state.read_bytes() == applied  # nothing changed, not even the state's serial
    # what command 1 leaves behind is ignored by git: the clone stays clean
    assert git(clone, "status", "--porcelain", "--untracked-files=all").strip() == ""
