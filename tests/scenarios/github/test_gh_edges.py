"""Edges of the flow: forks, read-only tokens, bad input, API outages, revoked permissions,
edited comments, reviews of old commits, no-change plans, workspace commit-back."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from averos_ci.cli import run_cli
from averos_ci.execute.adapters.mock import MockAdapter
from averos_ci.execute.contracts import ExecutionFailure, ExecutionResult
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
    c = world.fake.add_comment(number, user=user, body=world.approve_command(number))
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


class WritingAdapter(MockAdapter):
    """The mock adapter, plus one generated file per node; fails ``fail_at`` once."""

    def __init__(self, fail_at: str | None = None) -> None:
        super().__init__({})
        self.fail_at = fail_at

    def execute(self, node: Any, context: Any, state: Any) -> Any:
        if node.id == self.fail_at:
            return ExecutionResult(
                success=False,
                duration_ms=0,
                failure=ExecutionFailure(code="MOCK_FAILURE", message="simulated"),
            )
        out = context.workspace_root / "gen" / (node.id.replace(":", "_") + ".txt")
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(node.id + "\n", encoding="utf-8")
        return super().execute(node, context, state)


def run_in_process(
    world: World,
    monkeypatch: pytest.MonkeyPatch,
    sha: str,
    adapter: WritingAdapter,
    *,
    rerun_of: str | None = None,
) -> tuple[Any, Path]:
    from averos_ci.errors import AverosCIError
    from averos_ci.github import run_github
    from averos_ci.planning import apply as engine_apply

    checkout = world.checkout(sha)
    env = world.job_env("push", world.push_event(sha), checkout, sha, rerun_of=rerun_of)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.chdir(checkout)

    def apply_with(config: Any, **kwargs: Any) -> Any:
        return engine_apply(config, adapter=adapter, **kwargs)

    try:
        return run_github("apply", apply_fn=apply_with), checkout
    except AverosCIError as exc:
        return exc, checkout


@pytest.mark.parametrize("mode, branch", [("branch", "averos-workspace"), ("same-branch", "main")])
def test_workspace_is_committed_back(
    tmp_path: Path, fake: FakeGitHub, monkeypatch: pytest.MonkeyPatch, mode: str, branch: str
) -> None:
    fake.roles.update(alice="write", bob="write")
    world = make_world(tmp_path, fake, github_settings={"commitWorkspace": mode})
    head = open_pr(world)
    plan(world, 1, head)
    approve_by(world, 1, head)
    merge = world.merge("feat1")
    fake.merge(1, merge)
    result, checkout = run_in_process(world, monkeypatch, merge, WritingAdapter())
    assert result.success and result.applied, str(result)
    listing = git(world.origin, "ls-tree", "-r", "--name-only", branch).splitlines()
    assert "workspace/gen/application_ToDoApp.txt" in listing
    assert git(world.origin, "rev-parse", f"{branch}^") == merge
    assert "[skip ci]" in git(world.origin, "log", "-1", "--format=%s", branch)
    assert json.loads(world.state_files()["default/state.json"])["serial"] == 1
    assert git(checkout, "rev-parse", "HEAD") == merge  # the checkout itself is not moved


def test_partial_workspace_is_restored_when_resuming(
    tmp_path: Path, fake: FakeGitHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake.roles.update(alice="write", bob="write")
    world = make_world(tmp_path, fake, github_settings={"commitWorkspace": "branch"})
    head = open_pr(world)
    plan(world, 1, head)
    approve_by(world, 1, head)
    merge = world.merge("feat1")
    fake.merge(1, merge)
    failed, _ = run_in_process(world, monkeypatch, merge, WritingAdapter(fail_at="entity:ToDoTask"))
    assert getattr(failed, "exit_code", None) == 1
    run_id = world.last_run_id
    files = world.state_files()
    assert "default/apply.json" in files
    saved = [p for p in files if p.startswith("default/partial-workspace/files/")]
    assert "default/partial-workspace/files/workspace/gen/application_ToDoApp.txt" in saved

    result, checkout = run_in_process(world, monkeypatch, merge, WritingAdapter(), rerun_of=run_id)
    assert result.success and result.resumed
    # the first job's files came back from the state branch; the node was not redone
    assert (checkout / "workspace" / "gen" / "application_ToDoApp.txt").is_file()
    listing = git(world.origin, "ls-tree", "-r", "--name-only", "averos-workspace")
    assert "workspace/gen/application_ToDoApp.txt" in listing.splitlines()
    files = world.state_files()
    assert not any(p.startswith("default/partial-workspace/") for p in files)
    run = json.loads(next(v for p, v in files.items() if p.startswith("default/runs/")))
    assert run["resumed"] is True and run["resumedNodes"] >= 1


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


def test_fork_plan_is_commented_by_the_privileged_workflow_run(
    world: World, fake: FakeGitHub
) -> None:
    head = open_pr(world, fork=True)
    git(world.dev, "push", "-q", "origin", f"{head}:refs/pull/1/head")  # as GitHub keeps it
    r = world.run("pull_request", world.pr_event("opened", 1), head)
    assert r.code == 0 and not fake.bot_comments(1)
    fork_hash = r.outputs["plan-hash"]
    # the privileged run: the default branch is checked out, the fork's tree never is
    main = git(world.dev, "rev-parse", "origin/main")
    payload = {
        "action": "completed",
        "workflow_run": {
            "event": "pull_request",
            "head_sha": head,
            "head_branch": "feat1",
            "head_repository": {"full_name": "someone/fork", "owner": {"login": "someone"}},
        },
        "repository": world.push_event(main)["repository"],
    }
    checkout = world.checkout(main)
    r = world.run("workflow_run", payload, main, command="plan", checkout=checkout)
    assert r.code == 0, r.stderr
    comments = fake.bot_comments(1)
    assert len(comments) == 1 and f"`{fork_hash}`" in comments[0]["body"]
    assert fake.latest_status(head)["state"] == "pending"  # type: ignore[index]
    assert git(checkout, "rev-parse", "HEAD") == main
    assert git(checkout, "status", "--porcelain") == ""
    # a run for an outdated head plans nothing
    payload["workflow_run"]["head_sha"] = "c" * 40  # type: ignore[index]
    r = world.run("workflow_run", payload, main, command="plan")
    assert r.code == 0 and "nothing to plan" in r.stdout


def test_changes_requested_withdraws_an_approval(world: World, fake: FakeGitHub) -> None:
    head = open_pr(world)
    plan(world, 1, head)
    approve_by(world, 1, head)
    assert fake.latest_status(head)["state"] == "success"  # type: ignore[index]
    review = fake.add_review(1, user="bob", state="CHANGES_REQUESTED", commit_id=head)
    r = world.run("pull_request_review", world.review_event(1, review), head)
    assert r.code == 0 and r.outputs["approved"] == "false", r.stderr
    assert fake.latest_status(head)["state"] == "pending"  # type: ignore[index]
    merge = world.merge("feat1")
    fake.merge(1, merge)
    r = world.run("push", world.push_event(merge), merge)
    assert r.code == 1 and world.state_tip() is None


def test_review_with_a_read_only_token_warns_and_exits_0(world: World, fake: FakeGitHub) -> None:
    head = open_pr(world, fork=True)
    git(world.dev, "push", "-q", "origin", f"{head}:refs/pull/1/head")
    fake.add_comment(1, user="github-actions[bot]", body="placeholder")  # no plan yet
    fake.fail_next("POST", r"/issues/1/comments$", 403)
    review = fake.add_review(1, user="bob", state="APPROVED", commit_id=head)
    r = world.run("pull_request_review", world.review_event(1, review), head)
    assert r.code == 0 and "could not be recorded" in r.stderr, r.stderr
