"""Edges of the flow: forks, read-only tokens, bad input, API outages, revoked permissions,
edited comments, reviews of old commits, no-change plans, workspace commit-back."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from averos_ci.cli import run_cli
from tests.github.gh_fake import FakeGitHub
from tests.github.gh_world import World, git, make_world, manifest_variant

pytestmark = pytest.mark.slow


@pytest.fixture
def world(tmp_path: Path, fake: FakeGitHub) -> World:
    fake.roles.update(alice="write", bob="write", reader="read")
    return make_world(tmp_path, fake)


def open_pr(world: World, number: int = 1, *, fork: bool = False, extra: int = 1) -> str:
    head = world.commit(
        f"feat{number}", {"todoapp.manifest.yaml": manifest_variant(extra)}, "change"
    )
    world.fake.add_pull(number, author="alice", head_sha=head, head_ref=f"feat{number}", fork=fork)
    return head


def plan(world: World, number: int, head: str) -> None:
    r = world.run("pull_request", world.pr_event("opened", number), head)
    assert r.code == 0, r.stderr


def approve_by(world: World, number: int, head: str, user: str = "bob") -> dict[str, Any]:
    c = world.fake.add_comment(number, user=user, body="/averos approve")
    r = world.run("issue_comment", world.comment_event(number, c), head)
    assert r.code == 0, r.stderr
    return c


def test_fork_pr_plan_goes_to_the_summary_only(world: World, fake: FakeGitHub) -> None:
    head = open_pr(world, fork=True)
    r = world.run("pull_request", world.pr_event("opened", 1), head)
    assert r.code == 0, r.stderr
    assert not fake.bot_comments(1) and not fake.statuses
    assert "averos-ci plan" in r.summary and r.outputs["has-changes"] == "true"
    assert "fork" in r.stderr


def test_read_only_token_does_not_fail_the_job(world: World, fake: FakeGitHub) -> None:
    head = open_pr(world)
    fake.fail_next("POST", r"/issues/1/comments$", 403)
    r = world.run("pull_request", world.pr_event("opened", 1), head)
    assert r.code == 0, r.stderr
    assert "read-only token" in r.stderr and r.outputs["plan-hash"]


def test_bad_event_payload_is_exit_2_with_a_pointer(world: World) -> None:
    head = open_pr(world)
    payload = world.pr_event("opened", 1)
    payload["pull_request"]["user"] = None
    r = world.run("pull_request", payload, head)
    assert r.code == 2
    assert "/pull_request/user" in r.stderr and "Traceback" not in r.stderr


def test_wrong_command_for_the_event_is_exit_2(world: World) -> None:
    head = open_pr(world)
    r = world.run("pull_request", world.pr_event("opened", 1), head, command="apply")
    assert r.code == 2 and "cannot handle the 'pull_request' event" in r.stderr


def test_missing_actions_environment_is_exit_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_cli(["github", "plan"]) == 2
    assert "GITHUB_EVENT_NAME" in capsys.readouterr().err


def test_api_outage_during_apply_fails_clearly_and_keeps_state(
    world: World, fake: FakeGitHub
) -> None:
    head = open_pr(world)
    plan(world, 1, head)
    approve_by(world, 1, head)
    merge = world.merge("feat1")
    fake.merge(1, merge)
    fake.fail_next("GET", r"/issues/1/comments$", 502, times=50)
    r = world.run("push", world.push_event(merge), merge)
    assert r.code == 1
    assert "server error (HTTP 502)" in r.stderr and "gave up" in r.stderr
    assert "Traceback" not in r.stderr
    assert world.state_tip() is None  # nothing was claimed or applied


def test_approver_who_lost_permission_no_longer_counts(world: World, fake: FakeGitHub) -> None:
    head = open_pr(world)
    plan(world, 1, head)
    approve_by(world, 1, head)
    fake.roles["bob"] = "read"  # demoted between approval and merge
    merge = world.merge("feat1")
    fake.merge(1, merge)
    r = world.run("push", world.push_event(merge), merge)
    assert r.code == 1 and "no valid approval" in r.stderr
    assert world.state_tip() is None


def test_edited_approval_comment_does_not_count(world: World, fake: FakeGitHub) -> None:
    head = open_pr(world)
    plan(world, 1, head)
    c = approve_by(world, 1, head)
    fake.comments[c["id"]]["updated_at"] = "2030-01-01T00:00:00Z"
    merge = world.merge("feat1")
    fake.merge(1, merge)
    r = world.run("push", world.push_event(merge), merge)
    assert r.code == 1 and world.state_tip() is None


def test_review_of_an_older_commit_is_refused(world: World, fake: FakeGitHub) -> None:
    head = open_pr(world)
    plan(world, 1, head)
    review = fake.add_review(1, user="bob", state="APPROVED", commit_id="b" * 40)
    r = world.run("pull_request_review", world.review_event(1, review), head)
    assert r.code == 0 and r.outputs["approved"] == "false"
    assert any("this review is for commit" in c["body"] for c in fake.bot_comments(1))
    assert fake.latest_status(head)["state"] == "pending"  # type: ignore[index]


def test_no_change_plan_is_success_and_nothing_to_apply(world: World, fake: FakeGitHub) -> None:
    head = open_pr(world)
    plan(world, 1, head)
    approve_by(world, 1, head)
    merge = world.merge("feat1")
    fake.merge(1, merge)
    assert world.run("push", world.push_event(merge), merge).code == 0
    head2 = world.commit("docs", {"README.md": "docs only\n"}, "docs")  # the manifest stays
    fake.add_pull(2, author="alice", head_sha=head2, head_ref="docs")
    r = world.run("pull_request", world.pr_event("opened", 2), head2)
    assert r.code == 0 and r.outputs["has-changes"] == "false"
    assert r.outputs["approved"] == "true"
    assert fake.latest_status(head2)["state"] == "success"  # type: ignore[index]
    merge2 = world.merge("docs")
    fake.merge(2, merge2)
    tip = world.state_tip()
    r = world.run("push", world.push_event(merge2), merge2)
    assert r.code == 0 and "nothing to apply" in r.stdout and world.state_tip() == tip


def test_workspace_is_committed_to_a_branch(
    tmp_path: Path, fake: FakeGitHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake.roles.update(alice="write", bob="write")
    world = make_world(tmp_path, fake, github_settings={"commitWorkspace": "branch"})
    head = open_pr(world)
    plan(world, 1, head)
    approve_by(world, 1, head)
    merge = world.merge("feat1")
    fake.merge(1, merge)
    checkout = world.checkout(merge)
    env = world.job_env("push", world.push_event(merge), checkout, merge)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.chdir(checkout)

    from averos_ci.execute import apply as engine_apply
    from averos_ci.github import run_github

    def generating_apply(config: Any, **kwargs: Any) -> Any:
        out = config.workspace_root / "src" / "app.ts"
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text("export const generated = true;\n", encoding="utf-8")
        return engine_apply(config, **kwargs)

    result = run_github("apply", apply_fn=generating_apply)
    assert result.success and result.applied
    listing = git(world.origin, "ls-tree", "-r", "--name-only", "averos-workspace")
    assert "workspace/src/app.ts" in listing.splitlines()
    assert git(world.origin, "rev-parse", "averos-workspace^") == merge
    assert json.loads(world.state_files()["default/state.json"])["serial"] == 1
    assert git(checkout, "status", "--porcelain").strip() == "?? workspace/"  # tree untouched


def test_plan_approved_against_an_older_state_is_refused(world: World, fake: FakeGitHub) -> None:
    head1 = open_pr(world, 1, extra=1)
    plan(world, 1, head1)
    approve_by(world, 1, head1)
    head2 = world.commit(
        "feat2", {"todoapp.manifest.yaml": manifest_variant(2)}, "more", base="feat1"
    )
    fake.add_pull(2, author="alice", head_sha=head2, head_ref="feat2")
    plan(world, 2, head2)
    approve_by(world, 2, head2)  # approved while the state was still empty
    merge1 = world.merge("feat1")
    fake.merge(1, merge1)
    assert world.run("push", world.push_event(merge1), merge1).code == 0
    tip = world.state_tip()
    merge2 = world.merge("feat2")
    fake.merge(2, merge2)
    r = world.run("push", world.push_event(merge2), merge2)
    assert r.code == 1 and "is not the plan of this merge" in r.stderr, r.stderr
    assert world.state_tip() == tip
    assert any("Not applied" in c["body"] for c in fake.bot_comments(2))
