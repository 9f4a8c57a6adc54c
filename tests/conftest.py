"""Shared fixtures. Every test runs with an empty, private $HOME and fails if it writes there."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
# Real inputs (provenance: tests/data/SOURCES.md), kept in the repository: a clone is complete.
FIXTURES = REPO_ROOT / "tests" / "data"
GOLDEN_MANIFEST = FIXTURES / "averos" / "todoapp-manifest.json"
EVENTS = FIXTURES / "github" / "events"
EXAMPLE_DIR = REPO_ROOT / "examples" / "todoapp"


@pytest.fixture(autouse=True)
def _isolated_home(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Iterator[None]:
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(home / ".gitconfig-unused"))
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Test Author")
    monkeypatch.setenv("GIT_AUTHOR_EMAIL", "author@example.com")
    monkeypatch.setenv("GIT_COMMITTER_NAME", "Test Committer")
    monkeypatch.setenv("GIT_COMMITTER_EMAIL", "committer@example.com")
    for var in (
        "GITHUB_ACTIONS",
        "GITHUB_STEP_SUMMARY",
        "GITHUB_OUTPUT",
        "GITHUB_TOKEN",
        "GITHUB_EVENT_PATH",
        "GITHUB_EVENT_NAME",
    ):
        monkeypatch.delenv(var, raising=False)
    yield
    left = sorted(p.name for p in home.iterdir())
    assert not left, f"test wrote into $HOME: {left}"


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, text=True
    ).stdout


@pytest.fixture
def git_dir(tmp_path: Path) -> Path:
    """A fresh git repository with a fixed author (pre-commit's ``git_dir``)."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    return repo
