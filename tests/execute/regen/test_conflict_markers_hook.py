"""Issue 38 item 2: the ``averos-conflict-markers`` hook, installed by the real pre-commit the
way a user installs it (a ``.pre-commit-config.yaml`` naming this repository at its committed
HEAD, then ``pre-commit install``; the store is the session's, shared with the
``averos-validate`` hook test: one environment install): a commit of a file still holding
conflict markers fails, naming ``file:line``; once resolved, the commit goes through."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT, git, pre_commit_env, unavailable

MARKED = (
    "export class Book {\n"
    "<<<<<<< yours (workspace)\n"
    "    author!: string; // my note\n"
    "||||||| generated before\n"
    "    author!: string;\n"
    "=======\n"
    "    author!: number;\n"
    ">>>>>>> generated now\n"
    "}\n"
)
RESOLVED = "export class Book {\n    author!: string; // my note\n}\n"


@pytest.mark.precommit
@pytest.mark.slow
def test_the_hook_fails_a_commit_of_unresolved_markers(
    git_dir: Path, tmp_path: Path, pre_commit_home: Path
) -> None:
    if importlib.util.find_spec("pre_commit") is None or shutil.which("git") is None:
        unavailable("pre-commit (a test extra) or git is not installed")
    if not (REPO_ROOT / ".git").exists():
        unavailable("the repository root is not a git checkout")
    head = git(REPO_ROOT, "rev-parse", "HEAD").strip()
    (git_dir / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {REPO_ROOT}\n    rev: {head}\n"
        "    hooks:\n      - id: averos-conflict-markers\n",
        encoding="utf-8",
    )
    env = {
        # the session's store: the averos-validate hook test installs the same environment
        **pre_commit_env(tmp_path / "cache", pre_commit_home),
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.org",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.org",
    }

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            args, cwd=git_dir, env=env, capture_output=True, text=True, timeout=900
        )

    installed = run(sys.executable, "-m", "pre_commit", "install")
    assert installed.returncode == 0, installed.stdout + installed.stderr
    model = git_dir / "src/app/model/book.ts"
    model.parent.mkdir(parents=True)
    model.write_text(MARKED)
    git(git_dir, "add", ".")
    refused = run("git", "commit", "-q", "-m", "with markers")
    assert refused.returncode != 0, refused.stdout + refused.stderr
    out = refused.stdout + refused.stderr
    assert "no unresolved conflict markers" in out and "Failed" in out
    assert "src/app/model/book.ts:2: unresolved conflict markers" in out
    assert "Traceback" not in out
    assert run("git", "rev-parse", "--verify", "-q", "HEAD").returncode != 0  # no commit
    model.write_text(RESOLVED)
    git(git_dir, "add", ".")
    done = run("git", "commit", "-q", "-m", "resolved")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Passed" in done.stdout + done.stderr
