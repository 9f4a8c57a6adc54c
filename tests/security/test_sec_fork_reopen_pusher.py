"""Fork follow-up records the wrong pusher (issue 37, item 5; Low).

The attack: bob (write) pushes a commit to alice's closed fork pull request, its author e-mail
spoofed as alice's (so GitHub maps it to alice, not bob); alice reopens it. The fork's
``pull_request`` run for ``reopened`` has alice as its actor, and the privileged
``workflow_run`` follow-up recorded that actor as who pushed the head — so bob could approve
his own push. Now the follow-up takes the actor as the pusher only when the timeline proves
the run was a push's; else none is recorded and every approval but the author's is refused,
as for a reopened same-repository pull request (the control)."""

from __future__ import annotations

from pathlib import Path

import pytest

from averos_ci.forge.api import GitHubClient
from averos_ci.review.pushers import proven_fork_pusher
from tests.github.gh_fake import TOKEN, FakeGitHub
from tests.github.gh_steps import open_pr_from_main
from tests.github.gh_world import JobResult, World, git, make_world, manifest_variant
from tests.openapi_check import load_spec, spec_path

pytestmark = pytest.mark.slow


@pytest.fixture
def world(tmp_path: Path, fake: FakeGitHub) -> World:
    fake.roles.update(alice="write", bob="write", carol="write")
    return make_world(tmp_path, fake)


def fork_pr(world: World, number: int) -> str:
    """Alice's fork pull request #``number`` (branch ``change-<number>``); its head."""
    git(world.dev, "checkout", "-q", "main")
    world.fake.base_sha = git(world.dev, "rev-parse", "HEAD")
    branch = f"change-{number}"
    head = world.commit(branch, {"todoapp.manifest.yaml": manifest_variant(1)}, "v1")
    world.fake.add_pull(number, author="alice", head_sha=head, head_ref=branch, fork=True)
    git(world.dev, "push", "-q", "origin", f"{head}:refs/pull/{number}/head")
    return head


def push_as_alice(world: World, number: int) -> str:
    """A commit to the fork's branch whose author e-mail is alice's (GitHub maps it to her,
    whoever pushed it); the new head."""
    branch = f"change-{number}"
    head = world.commit(branch, {"todoapp.manifest.yaml": manifest_variant(2)}, "v2")
    git(world.dev, "push", "-q", "-f", "origin", f"{head}:refs/pull/{number}/head")
    world.fake.push_head(number, head, by="alice")
    return head


def approve_as(world: World, number: int, user: str, head: str) -> JobResult:
    c = world.fake.add_comment(number, user=user, body=world.approve_command(number))
    return world.run("issue_comment", world.comment_event(number, c), head)


def test_a_reopened_fork_pr_records_no_pusher_so_the_real_pusher_cannot_approve(
    world: World, fake: FakeGitHub
) -> None:
    fork_pr(world, 1)
    head = push_as_alice(world, 1)  # bob's push while the pull request was closed
    fake.timeline_event(1, "reopened", actor="alice")
    follow = world.fork_follow_up(head, "change-1", None, pusher="alice")  # the run's actor
    assert follow.plan.code == 0, follow.plan.stdout + follow.plan.stderr
    r = approve_as(world, 1, "bob", head)
    assert r.outputs.get("approved") != "true", r.stdout + r.stderr  # the attack line
    assert "is not recorded" in r.stdout + r.stderr


def test_a_force_push_after_the_reopen_proves_its_pusher(world: World, fake: FakeGitHub) -> None:
    fork_pr(world, 1)
    fake.timeline_event(1, "reopened", actor="alice")
    head = push_as_alice(world, 1)
    fake.timeline_event(1, "head_ref_force_pushed", actor="bob", commit_id=head)
    assert world.fork_follow_up(head, "change-1", None, pusher="alice").plan.code == 0
    refused = approve_as(world, 1, "bob", head)
    assert refused.outputs.get("approved") != "true", refused.stdout + refused.stderr
    assert "@bob pushed head" in refused.stdout + refused.stderr
    r = approve_as(world, 1, "carol", head)
    assert r.outputs.get("approved") == "true", r.stdout + r.stderr


def test_control_a_fork_push_never_reopened_records_the_run_actor(
    world: World, fake: FakeGitHub
) -> None:
    head = fork_pr(world, 1)
    assert world.fork_follow_up(head, "change-1", None, pusher="alice").plan.code == 0
    r = approve_as(world, 1, "bob", head)
    assert r.outputs.get("approved") == "true", r.stdout + r.stderr


def test_control_a_reopened_same_repository_pr_fails_closed_too(
    world: World, fake: FakeGitHub
) -> None:
    open_pr_from_main(world, 3, manifest_variant(1))
    head = world.commit("change-3", {"todoapp.manifest.yaml": manifest_variant(2)}, "v2")
    fake.push_head(3, head, by="alice")  # bob's spoofed push
    r = world.run("pull_request", world.pr_event("reopened", 3, sender="alice"), head)
    assert r.code == 0, r.stdout + r.stderr
    refused = approve_as(world, 3, "bob", head)
    assert refused.outputs.get("approved") != "true", refused.stdout + refused.stderr
    assert "is not recorded" in refused.stdout + refused.stderr


SPEC = spec_path()  # resolved before a test installs its private $HOME


def test_the_fakes_timeline_answers_as_githubs_description(fake: FakeGitHub) -> None:
    """The endpoint the proof reads, as the fake serves it, against GitHub's OpenAPI
    description (``timeline-issue-events``), read through the client, every page."""
    spec = load_spec(SPEC)
    old, new = "a" * 40, "b" * 40
    fake.add_pull(7, author="alice", head_sha=old, head_ref="x", fork=True)
    fake.push_head(7, new, by="alice")
    fake.timeline_event(7, "reopened", actor="alice")
    fake.timeline_event(7, "head_ref_force_pushed", actor="bob", commit_id=new)
    client = GitHubClient(token=TOKEN, repository=fake.repo, api_url=fake.url, max_retries=0)
    events = list(client.issue_timeline(7))
    assert [e["event"] for e in events] == [
        "committed",
        "committed",
        "reopened",
        "head_ref_force_pushed",
    ]
    path = f"/repos/{fake.repo}/issues/7/timeline"
    for page in (1, 2):
        body = client.request("GET", path, params={"page": page}).json()
        assert body, page
        spec.check("GET", path, {"page": str(page)}, 200, body)
    assert proven_fork_pusher(events, head_sha=new, actor="alice") == "bob"
    assert proven_fork_pusher(events[:3], head_sha=new, actor="alice") is None
    assert proven_fork_pusher(events[:2], head_sha=new, actor="alice") == "alice"
    assert proven_fork_pusher(events[:2], head_sha="c" * 40, actor="alice") is None
