"""Issue 22 (Low): anyone can comment ``/averos approve`` on any merged pull request. In the
apply workflow that run passes the workflow's ``if:``, takes the concurrency group and
replaces the pending push-triggered apply; it must still run the catch-up (which applies
approved steps only), whether or not that comment counts as an approval."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.github.gh_fake import FakeGitHub
from tests.github.gh_world import World, make_world, manifest_variant

pytestmark = pytest.mark.slow


@pytest.fixture
def world(tmp_path: Path, fake: FakeGitHub) -> World:
    fake.roles.update(alice="write", bob="write", reader="read")
    return make_world(tmp_path, fake)


def test_a_refused_approve_comment_on_a_merged_pr_still_catches_up(
    world: World, fake: FakeGitHub
) -> None:
    head = world.commit("feat1", {"todoapp.manifest.yaml": manifest_variant(1)}, "one")
    fake.add_pull(1, author="alice", head_sha=head, head_ref="feat1")
    assert world.run("pull_request", world.pr_event("opened", 1), head).code == 0
    ok = fake.add_comment(1, user="bob", body=world.approve_command(1))
    assert (
        world.run("issue_comment", world.comment_event(1, ok), head).outputs["approved"] == "true"
    )
    merge = world.merge("feat1")
    fake.merge(1, merge)
    # the push-triggered apply was pending and got replaced (never ran): a reader comments
    c = fake.add_comment(1, user="reader", body="/averos approve")
    r = world.run("issue_comment", world.comment_event(1, c), merge, command="apply")
    assert r.code == 0, r.stdout + r.stderr
    assert "default/state.json" in world.state_files(), r.stdout + r.stderr
