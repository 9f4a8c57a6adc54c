"""Shared fixtures. Every test runs with an empty, private $HOME and fails if it writes there.

The suite runs under pytest-xdist (``.ci/run``: ``-n 4 --dist loadgroup``); see
``pytest_collection_modifyitems`` below for which tests share a worker, and docs/development.md.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import NoReturn

import pytest

# The test world, registered once: the fake GitHub API and its default world, the Angular
# template workspace (their fixtures are everyone's; a module overrides one by defining it).
pytest_plugins = ["tests.plugins.github_world", "tests.plugins.angular"]

REPO_ROOT = Path(__file__).resolve().parents[1]
# Real inputs (provenance: tests/data/SOURCES.md), kept in the repository: a clone is complete.
FIXTURES = REPO_ROOT / "tests" / "data"
GOLDEN_MANIFEST = FIXTURES / "averos" / "todoapp-manifest.json"
EVENTS = FIXTURES / "github" / "events"
EXAMPLE_DIR = REPO_ROOT / "examples" / "todoapp"
# The example's averos.config.json runs the real Angular adapter (README command 1); the tests
# run the same example on the mock adapter, whose config sits beside it.
EXAMPLE_MOCK_CONFIG = EXAMPLE_DIR / "averos.mock.config.json"
# What an example consists of; anything else there is run output (README command 1 leaves
# .averos/ with state, checkpoints and logs; a user may add workspace/, reports, plans).
EXAMPLE_INPUTS = ("*.config.json", "*.manifest.yaml", "*.manifest.yml", "*.manifest.json")


def in_ci() -> bool:
    """``CI=true`` or ``CI=1`` (GitHub Actions and .ci/run set it); anything else is not CI."""
    return os.environ.get("CI", "").strip().lower() in ("true", "1")


def unavailable(reason: str) -> NoReturn:
    """A test cannot run on this machine: skipped here, failed under CI (CI never passes by
    skipping). Every skip-or-fail decision of the suite goes through this function."""
    if in_ci():
        pytest.fail(f"CI is set and this test cannot run: {reason}", pytrace=False)
    pytest.skip(reason)


# Session fixtures costly enough that one worker should pay for them once: the tests using them
# share an xdist group (a private dockerd and the image build take minutes; the site ~20 s).
SESSION_GROUPS = {
    "docker_host": "docker",
    "image": "docker",
    "site": "docs-site",
    "pre_commit_home": "pre-commit",
}


@pytest.fixture(autouse=True)
def _terminal_signals() -> None:
    """The commands a test starts get Ctrl-C and SIGTERM as from a terminal: neither ignored
    nor blocked. Both are inherited through exec: a suite started in the background by a shell
    without job control (`bash .ci/run &`) gets SIGINT ignored, and a signal blocked in the
    thread that starts a child stays blocked in it. Either way an interrupt test's averos-ci
    never sees its signal (the final runs of two sessions: five interrupt tests waited out
    their hang guards in a suite whose tests passed alone). A caught signal is reset to the
    default at exec, so catching SIGINT here gives each child Python's KeyboardInterrupt."""
    if threading.current_thread() is not threading.main_thread():
        return
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    if signal.getsignal(signal.SIGTERM) == signal.SIG_IGN:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


def xdist_group_of(item: pytest.Item) -> str | None:
    """The group a test must share a worker with, or ``None`` (any worker).

    Under ``--dist loadgroup`` a module-scoped fixture would otherwise be built once per
    worker that runs one of the module's tests (a generated Angular workspace: minutes), so
    the tests of a module using one of its own module-scoped fixtures form one group."""
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return None
    for name in info.names_closure:
        if name in SESSION_GROUPS:
            return SESSION_GROUPS[name]
    for name in info.names_closure:
        for fixturedef in info.name2fixturedefs.get(name, ()):
            if fixturedef.scope in ("module", "package"):
                return item.nodeid.split("::")[0]
    return None


@pytest.hookimpl(tryfirst=True)  # before xdist reads the marks (it suffixes node ids with them)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if item.get_closest_marker("xdist_group") is not None:
            continue
        group = xdist_group_of(item)
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(group))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> object:
    """Under CI a skip is a failure, whatever its source (a marker, a plugin, a forgotten
    pytest.skip), and so is an expected failure (xfail): both are a test that did not prove
    what it names. CI must never pass by not testing. (An xfail that passes already fails:
    ``xfail_strict = true`` in pyproject.toml.)"""
    report = yield
    if in_ci() and report.skipped:
        xfail = getattr(report, "wasxfail", None)
        if xfail is not None:
            del report.wasxfail  # else reporters would still count it as xfailed
        report.outcome = "failed"
        report.longrepr = (
            f"xfail under CI (an expected failure proves nothing; fix it or delete it): {xfail}"
            if xfail is not None
            else f"skipped under CI (CI never passes by skipping): {report.longrepr}"
        )
    return report


def require_tool(name: str, *, install: str) -> str:
    """The path of executable ``name``; ``install`` says how to get it (.ci/run installs it)."""
    found = shutil.which(name)
    if found is None:
        unavailable(f"{name} is not on PATH ({install})")
    return found


def copy_example(dest: Path, *, source: Path = EXAMPLE_DIR, mock: bool = False) -> Path:
    """Copy an example's inputs (config files, manifests) to ``dest``, never its run output.

    ``mock=True``: the copy's ``averos.config.json`` is the example's mock config
    (``averos.mock.config.json``), so commands run on the mock adapter."""

    def run_output(directory: str, names: list[str]) -> set[str]:
        keep = {n for n in names if any(Path(n).match(p) for p in EXAMPLE_INPUTS)}
        return {n for n in names if n not in keep or (Path(directory) / n).is_dir()}

    shutil.copytree(source, dest, ignore=run_output)
    if mock:
        shutil.copy(dest / "averos.mock.config.json", dest / "averos.config.json")
    return dest


# A fresh machine has no git identity (GitHub's runners have none): every test commits with
# this one. Module- and session-scoped fixtures run outside the autouse fixture below, so those
# that commit set it themselves (``pytest.MonkeyPatch.context()``).
GIT_IDENTITY = {
    "GIT_AUTHOR_NAME": "Test Author",
    "GIT_AUTHOR_EMAIL": "author@example.com",
    "GIT_COMMITTER_NAME": "Test Committer",
    "GIT_COMMITTER_EMAIL": "committer@example.com",
}


@pytest.fixture(autouse=True)
def _isolated_home(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Iterator[None]:
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(home / ".gitconfig-unused"))
    for name, value in GIT_IDENTITY.items():
        monkeypatch.setenv(name, value)
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


@pytest.fixture(scope="session")
def pre_commit_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One ``PRE_COMMIT_HOME`` for the session's real-pre-commit tests of this repository's
    hooks (``averos-validate``, ``averos-conflict-markers``): they pin the same repository and
    ``rev`` (HEAD), so pre-commit installs the hooks' environment (pip installing averos-ci:
    most of such a test's time) once and the other test reuses it, as a user's store does.
    The tests share an xdist group (SESSION_GROUPS), so one worker pays for it once."""
    return tmp_path_factory.mktemp("pre-commit-home")


def pre_commit_env(cache: Path, store: Path) -> dict[str, str]:
    """The environment a real-pre-commit hook test runs pre-commit in: its own HOME and tool
    caches under ``cache`` (pre-commit, pip, virtualenv and the toolchains they probe keep
    caches under HOME), the store ``store`` (the session's :func:`pre_commit_home`: one hook
    environment install for every such test) and pip's download cache from the averos-ci
    cache folder."""
    from averos_ci.execute.adapters.angular.options import cache_root

    (cache / "home").mkdir(parents=True, exist_ok=True)
    return {
        **os.environ,
        "HOME": str(cache / "home"),
        "PRE_COMMIT_HOME": str(store),
        "PIP_CACHE_DIR": str(cache_root(None) / "pip"),
        "XDG_CACHE_HOME": str(cache / "xdg"),
        "VIRTUALENV_OVERRIDE_APP_DATA": str(cache / "virtualenv"),
        "PRE_COMMIT_COLOR": "never",
    }
