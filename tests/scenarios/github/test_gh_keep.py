"""Keeping the generated app (fast, with a file-writing mock): committed back to the default
branch by default; a pull request from ``averos/apply-<planHash12>`` when the branch is
protected; nothing with ``none``. The state records where the app lives."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from averos_ci.execute.contracts import RuntimeMutation
from tests.github.gh_fake import FakeGitHub
from tests.github.gh_world import World, git, make_world
from tests.scenarios.github.test_gh_angular_journey import PROTECTED_HOOK
from tests.scenarios.github.test_gh_edges import (
    WritingAdapter,
    approve_by,
    open_pr,
    plan,
    run_in_process,
)

pytestmark = pytest.mark.slow


class FingerprintedWriter(WritingAdapter):
    """The writing mock, reporting the files it writes (so the state fingerprints them)."""

    def execute(self, node: Any, context: Any, state: Any) -> Any:
        result = super().execute(node, context, state)
        rel = "gen/" + node.id.replace(":", "_") + ".txt"
        return result.model_copy(update={"runtime_mutation": RuntimeMutation(created=(rel,))})


def applied(
    tmp_path: Path, fake: FakeGitHub, monkeypatch: pytest.MonkeyPatch, **settings: Any
) -> tuple[World, Any, str]:
    adapter = settings.pop("adapter", None) or WritingAdapter()
    fake.roles.update(alice="write", bob="write")
    protected = settings.pop("protected", False)
    world = make_world(tmp_path, fake, github_settings=settings)
    if protected:
        hook = world.origin / "hooks" / "pre-receive"
        hook.write_text(PROTECTED_HOOK, encoding="utf-8")
        hook.chmod(0o755)
    head = open_pr(world)
    plan(world, 1, head)
    approve_by(world, 1, head)
    merge = world.merge("feat1")
    fake.merge(1, merge)
    result, _ = run_in_process(world, monkeypatch, merge, adapter)
    return world, result, merge


def location(world: World) -> dict[str, Any]:
    state = json.loads(world.state_files()["default/state.json"])
    workspace: dict[str, Any] = state["workspace"]
    return workspace


def result_comment(fake: FakeGitHub) -> str:
    return next(str(c["body"]) for c in fake.bot_comments(1) if "averos-ci:result" in c["body"])


def test_default_commits_the_app_back_to_the_default_branch(
    tmp_path: Path, fake: FakeGitHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    world, result, merge = applied(tmp_path, fake, monkeypatch)
    assert result.success and result.applied, str(result)
    tip = git(world.origin, "rev-parse", "main")
    assert git(world.origin, "rev-parse", "main^") == merge
    assert "[skip ci]" in git(world.origin, "log", "-1", "--format=%s", "main")
    assert "workspace/gen/application_ToDoApp.txt" in git(
        world.origin, "ls-tree", "-r", "--name-only", "main"
    )
    assert location(world)["commit"] == tip and location(world)["pullRequest"] is None
    assert "Generated files committed to `main`" in result_comment(fake)
    assert not fake.created_pulls


def test_protected_branch_gets_a_pull_request(
    tmp_path: Path, fake: FakeGitHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    world, result, merge = applied(tmp_path, fake, monkeypatch, protected=True)
    assert result.success and result.applied, str(result)
    assert git(world.origin, "rev-parse", "main") == merge  # refused: main did not move
    assert fake.created_pulls == [2]
    pr = fake.pulls[2]
    branch = "averos/apply-" + result.plan.plan_hash[:12]
    assert pr["head"]["ref"] == branch and pr["base"]["ref"] == "main" and pr["state"] == "open"
    assert git(world.origin, "rev-parse", f"{branch}^") == merge
    created = next(r for r in fake.requests if r.method == "POST" and r.path.endswith("/pulls"))
    sent = json.loads(created.body)
    assert sent["head"] == branch and sent["base"] == "main" and "protection" in sent["body"]
    assert created.status == 201
    loc = location(world)
    assert loc["pullRequest"]["number"] == 2 and loc["pullRequest"]["branch"] == branch
    assert loc["pullRequest"]["commit"] == pr["head"]["sha"]
    assert f"[#2]({pr['html_url']})" in result_comment(fake)


def test_none_commits_nothing_and_says_who_keeps_the_workspace(
    tmp_path: Path, fake: FakeGitHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    world, result, merge = applied(tmp_path, fake, monkeypatch, commitWorkspace="none")
    assert result.success
    assert git(world.origin, "rev-parse", "main") == merge and not fake.created_pulls
    assert "keep the workspace yourself" in result_comment(fake)
    assert location(world)["commit"] is None


def test_until_the_pull_request_is_merged_plans_report_drift_and_applies_refuse(
    tmp_path: Path, fake: FakeGitHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    world, result, _ = applied(
        tmp_path, fake, monkeypatch, protected=True, adapter=FingerprintedWriter()
    )
    assert result.success and fake.created_pulls == [2]
    files = location(world)["nodes"]
    assert files["application:ToDoApp"]["files"]["gen/application_ToDoApp.txt"]
    state_before = world.state_files()["default/state.json"]
    head = open_pr(world, 3, extra=2)
    plan(world, 3, head)
    body = next(str(c["body"]) for c in fake.bot_comments(3) if "averos-ci:plan" in c["body"])
    assert "Drift" in body and "pull request #2" in body
    assert fake.latest_status(head)["state"] == "failure"  # type: ignore[index]
    approve_by(world, 3, head)
    body = next(str(c["body"]) for c in fake.bot_comments(3) if "averos-ci:plan" in c["body"])
    assert "Approved" in body and "Drift" in body  # the approval keeps the drift report
    merge = world.merge("feat3")
    fake.merge(3, merge)
    refused, _ = run_in_process(world, monkeypatch, merge, FingerprintedWriter())
    assert getattr(refused, "exit_code", None) == 2, str(refused)
    assert "pull request #2" in str(refused) and "merge pull request #2" in str(refused)
    assert "Not applied" in next(
        str(c["body"]) for c in fake.bot_comments(3) if "averos-ci:result" in c["body"]
    )
    assert world.state_files()["default/state.json"] == state_before
    assert "default/apply.json" not in world.state_files()
