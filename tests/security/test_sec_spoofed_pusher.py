"""Issue 22 Medium 5, as the attack: the last-pusher rule must not trust commit e-mails. Bob
commits as ``<id>+alice@users.noreply.github.com`` (GitHub maps the commit to alice), pushes
to Alice's pull request and approves it. Who pushed is the ``sender`` of the ``synchronize``
event, recorded in the bot's own status on the head; a head without that record fails closed."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.github.gh_fake import FakeGitHub
from tests.github.gh_steps import merge_and_apply
from tests.github.gh_world import World, git, make_world, manifest_variant

pytestmark = pytest.mark.slow


@pytest.fixture
def world(tmp_path: Path, fake: FakeGitHub) -> World:
    fake.roles.update(alice="write", bob="write", carol="write")
    return make_world(tmp_path, fake)


def bob_pushes(world: World, fake: FakeGitHub) -> str:
    head1 = world.commit("feat1", {"todoapp.manifest.yaml": manifest_variant(1)}, "one")
    fake.add_pull(1, author="alice", head_sha=head1, head_ref="feat1")
    assert world.run("pull_request", world.pr_event("opened", 1), head1).code == 0
    # bob's commit carries alice's noreply e-mail: the API attributes it to alice
    head2 = world.commit("feat1", {"todoapp.manifest.yaml": manifest_variant(2)}, "bob's")
    fake.push_head(1, head2, by="alice")
    return head2


def approve(world: World, fake: FakeGitHub, user: str, head: str) -> tuple[bool, str]:
    c = fake.add_comment(1, user=user, body=world.approve_command(1))
    r = world.run("issue_comment", world.comment_event(1, c), head)
    return r.outputs.get("approved") == "true", r.stdout + r.stderr


def test_the_pusher_cannot_approve_whatever_the_commit_emails_say(
    world: World, fake: FakeGitHub
) -> None:
    head2 = bob_pushes(world, fake)
    r = world.run("pull_request", world.pr_event("synchronize", 1, sender="bob"), head2)
    assert r.code == 0, r.stderr
    counted, out = approve(world, fake, "bob", head2)
    assert not counted, out
    assert "pushed" in out, out
    r = merge_and_apply(world, "feat1", 1)
    assert r.code == 1 and "approved by bob" not in r.stdout, r.stdout + r.stderr


def test_someone_else_can_approve_the_pushed_head(world: World, fake: FakeGitHub) -> None:
    head2 = bob_pushes(world, fake)
    assert (
        world.run("pull_request", world.pr_event("synchronize", 1, sender="bob"), head2).code == 0
    )
    counted, out = approve(world, fake, "carol", head2)
    assert counted, out


def test_a_status_a_user_created_names_no_pusher(world: World, fake: FakeGitHub) -> None:
    """Any write user may create statuses: bob plants one naming alice as the pusher before
    the plan job runs; only statuses the bot created are records."""
    head2 = bob_pushes(world, fake)
    fake.add_status(
        head2,
        by="bob",
        state="pending",
        context="averos-ci/plan/default",
        description="x",
        target_url="https://example.com/run#averos-ci=plan:0,pr:1,pusher:alice",
    )
    assert (
        world.run("pull_request", world.pr_event("synchronize", 1, sender="bob"), head2).code == 0
    )
    counted, out = approve(world, fake, "bob", head2)
    assert not counted, out


def test_a_head_without_a_recorded_push_fails_closed(world: World, fake: FakeGitHub) -> None:
    """The ``synchronize`` run was cancelled; the head is planned by ``/averos plan``: who
    pushed it is unknown, so no approval counts under the last-pusher rule."""
    head2 = bob_pushes(world, fake)
    git(world.dev, "push", "-q", "origin", f"{head2}:refs/pull/1/head")  # as GitHub keeps it
    c = fake.add_comment(1, user="alice", body="/averos plan")
    r = world.run("issue_comment", world.comment_event(1, c), head2)
    assert r.code == 0, r.stdout + r.stderr
    counted, out = approve(world, fake, "carol", head2)
    assert not counted, out
    assert "not recorded" in out, out
