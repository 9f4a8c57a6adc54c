"""``averos-ci init`` for a project on one's machine (issue 38, item 6): ``--local``, or no
GitHub remote, writes the config, the manifest, ``.gitignore`` and the pre-commit hook and no
GitHub files; ``.gitignore`` is always written, and keeps what a run writes out of git while
the state and the pristine tree (the base of the next merge) stay committed."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from averos_ci import __version__
from averos_ci.cli import run_cli
from averos_ci.onboard import Change, init_repository
from tests.conftest import unavailable
from tests.onboard.conftest import git

LOCAL_FILES = [
    ".gitignore",
    ".pre-commit-config.yaml",
    "averos.config.json",
    "averos.manifest.yaml",
]


def tree(root: Path) -> list[str]:
    return sorted(
        p.relative_to(root).as_posix()
        for p in root.rglob("*")
        if p.is_file() and ".git" not in p.relative_to(root).parts
    )


@pytest.fixture
def clone_install(monkeypatch: pytest.MonkeyPatch) -> None:
    """averos-ci as ``pip install -e <clone>`` of a clone without a github.com origin: pip
    records no GitHub URL and the clone names none."""
    monkeypatch.setattr("averos_ci.onboard.init.installed_from", lambda: None)
    monkeypatch.setattr("averos_ci.onboard.init.source_clone_slug", lambda: None)


def test_init_local_writes_the_four_local_files_and_no_github_ones(
    repo: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    clone_install: None,
) -> None:
    monkeypatch.chdir(repo)
    assert run_cli(["init", "--local", "--adapter", "mock"]) == 0
    assert tree(repo) == LOCAL_FILES
    out = capsys.readouterr().out
    assert "GitHub's settings" not in out and "averos-ci run" in out
    assert "default branch" not in out
    # from a clone install the hook runs the installed averos-ci (no GitHub URL to pin)
    hook = (repo / ".pre-commit-config.yaml").read_text(encoding="utf-8")
    assert "  - repo: local\n" in hook and "entry: averos-ci validate" in hook
    assert "github.com" not in hook
    assert run_cli(["init", "--local", "--adapter", "mock"]) == 0  # a second run: unchanged
    assert "nothing to change" in capsys.readouterr().out


def test_init_without_a_github_remote_sets_up_a_local_project_and_says_so(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, clone_install: None
) -> None:
    origin = tmp_path / "origin.git"  # a remote, but not on GitHub
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(origin))
    git(repo, "remote", "add", "origin", str(origin))
    result = init_repository(repo, adapter="mock")
    assert result.local and result.checklist == ()
    assert tree(repo) == LOCAL_FILES
    assert any("no GitHub remote (origin): a local project" in n for n in result.notes)


def test_a_github_project_from_a_clone_install_uses_the_clones_origin_or_hints_what_works(
    repo: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    clone_install: None,
) -> None:
    git(repo, "remote", "add", "origin", "https://github.com/acme/shop.git")
    monkeypatch.chdir(repo)
    assert run_cli(["init", "--adapter", "mock"]) == 2
    err = capsys.readouterr().err
    assert f"the release tag v{__version__}" in err
    assert "--action-repo OWNER/NAME" in err and "averos-ci init --local" in err
    assert tree(repo) == []
    # the hint's first way works; the second too
    assert run_cli(["init", "--adapter", "mock", "--action-repo", "acme/averos-ci"]) == 0
    assert ".github/workflows/averos-plan.yml" in tree(repo)
    # an editable install from a clone whose origin is on GitHub: that repository, no flag
    clone = tmp_path / "averos-ci-clone"
    git(tmp_path, "init", "-q", str(clone))
    git(clone, "remote", "add", "origin", "git@github.com:forked/averos-ci.git")
    monkeypatch.undo()
    monkeypatch.setattr("averos_ci.onboard.init.installed_from", lambda: None)
    monkeypatch.setattr("averos_ci.onboard.repo.source_clone", lambda: clone)
    result = init_repository(repo, adapter="mock", dry_run=True)
    (action,) = (f for f in result.files if f.path == ".github/actions/averos-ci/action.yml")
    assert f"uses: forked/averos-ci@v{__version__} " in action.content


def test_init_writes_a_gitignore_always_and_adds_only_missing_lines(repo: Path) -> None:
    (repo / "web").mkdir()
    config = {"statePath": "state/s.json", "adapterOptions": {"cacheDir": "../.cache/t"}}
    (repo / "web" / "averos.config.json").write_text(json.dumps(config), encoding="utf-8")
    ignore = repo / ".gitignore"
    ignore.write_text("# mine\n*.log\n/.averos/logs/\n", encoding="utf-8")
    result = init_repository(repo, action_repo="acme/averos-ci", adapter="mock")
    (planned,) = (f for f in result.files if f.path == ".gitignore")
    assert planned.change is Change.UPDATE
    text = ignore.read_text(encoding="utf-8")
    assert text.startswith("# mine\n*.log\n/.averos/logs/\n\n# averos-ci: ")
    lines = text.split("# averos-ci: ")[1].splitlines()[1:]
    # the project's own paths; a CI project keeps its state on the state branch: ignored
    assert lines == [
        "/web/.averos/logs/",
        "/web/.averos/checkpoints.json",
        "/web/state/regen/",
        "/web/state/s.json.serial-*.bak",
        "/web/state/s.json",
        "/web/state/pristine/",
        "/.cache/t/",  # an in-tree template cache
        "node_modules/",
    ]
    again = init_repository(repo, action_repo="acme/averos-ci", adapter="mock")
    assert {f.change for f in again.files} == {Change.UNCHANGED}


def test_a_run_and_a_preview_stage_nothing_of_theirs_but_the_state(
    repo: Path, monkeypatch: pytest.MonkeyPatch, clone_install: None
) -> None:
    """`git add -A` after a run (and a preview's data) stages the application, the state and
    the pristine tree, never logs, checkpoints, scratch generations or backups."""
    monkeypatch.chdir(repo)
    assert run_cli(["init", "--local", "--adapter", "mock"]) == 0
    config = json.loads((repo / "averos.config.json").read_text(encoding="utf-8"))
    config["adapterOptions"] = {"writeFiles": True}
    (repo / "averos.config.json").write_text(json.dumps(config), encoding="utf-8")
    (repo / "averos.manifest.yaml").write_text(
        "applicationName: Shop\ndefaultLanguageCode: en\nenableAuthentication: false\n"
        "entities:\n  - name: Item\n    members:\n"
        "      - {memberNature: simple, ename: Item, mname: itemId, memberType: string, "
        "memberTag: ID}\n"
        "useCases: []\nlanguages:\n  - {languageCode: en, translationEntries: []}\n",
        encoding="utf-8",
    )
    assert run_cli(["run"]) == 0
    logs = repo / ".averos" / "logs"
    assert (logs / "events.jsonl").is_file()
    # what `averos-ci preview` writes (averos_ci.preview.session: logsDir/preview/backend)
    backend = logs / "preview" / "backend"
    backend.mkdir(parents=True)
    (backend / "db-3000.json").write_text("{}", encoding="utf-8")
    (repo / ".averos" / "regen" / "0123").mkdir(parents=True)
    (repo / ".averos" / "regen" / "0123" / "checkpoints.jsonl").write_text("", encoding="utf-8")
    (repo / ".averos" / "checkpoints.json").write_text("{}", encoding="utf-8")
    (repo / ".averos" / "state.json.serial-1.bak").write_text("{}", encoding="utf-8")
    (repo / "app" / "node_modules" / "x").mkdir(parents=True)
    (repo / "app" / "node_modules" / "x" / "index.js").write_text("", encoding="utf-8")
    git(repo, "add", "-A")
    staged = git(repo, "diff", "--cached", "--name-only").splitlines()
    assert ".averos/state.json" in staged
    assert any(p.startswith(".averos/pristine/trees/") for p in staged)
    assert any(p.startswith("app/src/") for p in staged)
    assert [p for p in staged if p.startswith(".averos/") and "pristine/" not in p] == [
        ".averos/state.json"
    ]
    assert not [p for p in staged if "node_modules" in p]


def test_the_local_hook_runs_under_real_pre_commit(
    repo: Path, tmp_path: Path, clone_install: None
) -> None:
    if importlib.util.find_spec("pre_commit") is None:
        unavailable("pre-commit is not installed (a test extra: pip install -e '.[test]')")
    init_repository(repo, adapter="mock", local=True)
    (repo / "bad.manifest.yaml").write_text("applicationName: 12\n", encoding="utf-8")
    git(repo, "add", "-A")
    cache = tmp_path / "cache"
    env = {
        **os.environ,
        "HOME": str(cache / "home"),
        "PRE_COMMIT_HOME": str(cache / "pre-commit"),
        "PRE_COMMIT_COLOR": "never",
        # language: system runs the averos-ci on PATH: this interpreter's
        "PATH": str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", ""),
    }

    def hook(name: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "pre_commit", "run", "averos-validate", "--files", name],
            cwd=repo,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )

    good = hook("averos.manifest.yaml")
    assert good.returncode == 0 and "Passed" in good.stdout, good.stdout + good.stderr
    bad = hook("bad.manifest.yaml")
    assert bad.returncode == 1 and "bad.manifest.yaml:1:" in bad.stdout, bad.stdout


def test_moving_the_hook_between_local_and_github_is_a_conflict_that_force_resolves(
    repo: Path, clone_install: None
) -> None:
    init_repository(repo, adapter="mock", local=True)
    hooks = repo / ".pre-commit-config.yaml"
    mine = (
        "      - id: my-check\n        name: mine\n        entry: true\n        language: system\n"
    )
    hooks.write_text(hooks.read_text(encoding="utf-8") + mine, encoding="utf-8")
    result = init_repository(repo, action_repo="acme/averos-ci")
    (found,) = (f for f in result.files if f.path == ".pre-commit-config.yaml")
    assert found.change is Change.CONFLICT and not result.written
    assert found.why == (
        "the averos-validate hook pins a local hook (repo: local), not "
        f"https://github.com/acme/averos-ci@v{__version__}"
    )
    init_repository(repo, action_repo="acme/averos-ci", force=True)
    text = hooks.read_text(encoding="utf-8")
    assert "  - repo: local" in text and "id: my-check" in text  # the user's local hook stays
    assert text.count("averos-validate") == 1
    assert f"  - repo: https://github.com/acme/averos-ci\n    rev: v{__version__}" in text
