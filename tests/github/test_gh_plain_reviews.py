"""Plain approving reviews (GitHub's "Approve" button, no ``/averos approve`` line), end to end
on the fake GitHub API and a bare origin: they count while the plan shown is the plan that
will be applied, are reported as outdated once another apply moved the state, follow the
same approver rules as pinned approvals, and a base-branch setting turns them off."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from averos_ci.review.outdated import is_outdated
from tests.github.gh_fake import FakeGitHub
from tests.github.gh_steps import merge_and_apply, open_pr, plain_review_world, status, sticky
from tests.github.gh_world import JobResult, World, make_world, manifest_variant

pytestmark = pytest.mark.slow


@pytest.fixture
def world(tmp_path: Path, fake: FakeGitHub) -> World:
    return plain_review_world(tmp_path, fake)


def review(world: World, number: int, user: str, head: str, body: str = "") -> JobResult:
    rv = world.fake.add_review(number, user=user, state="APPROVED", commit_id=head, body=body)
    r = world.run("pull_request_review", world.review_event(number, rv), head)
    assert r.code == 0, r.stdout + r.stderr
    return r


def test_a_plain_review_counts_while_the_state_is_unchanged(world: World, fake: FakeGitHub) -> None:
    head = open_pr(world, 1, "feat1", 1)
    body, meta = sticky(fake, 1)
    assert meta.plan_at and meta.base_state  # what the plan was computed against, and when
    assert "a plain approving review counts too" in body
    assert status(fake, head)["state"] == "pending"

    r = review(world, 1, "bob", head)  # the button: no body
    assert r.outputs["approved"] == "true"
    body, _ = sticky(fake, 1)
    assert "**Approved** by @\u200bbob" in body
    assert status(fake, head)["state"] == "success"
    assert "approved by bob" in status(fake, head)["description"]

    r = merge_and_apply(world, "feat1", 1)
    assert r.code == 0, r.stdout + r.stderr
    assert f"plan {meta.plan_hash} approved by bob" in r.stdout
    state = json.loads(world.state_files()["default/state.json"])
    assert state["serial"] == 1


def test_a_plain_review_is_outdated_once_another_apply_moved_the_state(
    world: World, fake: FakeGitHub
) -> None:
    head1 = open_pr(world, 1, "feat1", 1)
    head2 = open_pr(world, 2, "feat2", 2, base="feat1")  # builds on #1: no merge conflict
    _, meta2 = sticky(fake, 2)
    assert review(world, 2, "bob", head2).outputs["approved"] == "true"
    assert status(fake, head2)["state"] == "success"

    # #1 is approved, merged and applied: the state #2 was planned against is gone
    review(world, 1, "carol", head1, body=world.approve_command(1))
    assert merge_and_apply(world, "feat1", 1).code == 0
    tip = world.state_tip()

    # a plain review now: refused, because the apply of #1 marked #2's plan outdated (the
    # state-hash refusal is tested on its own below)
    r = review(world, 2, "dave", head2)
    assert r.outputs["approved"] == "false"
    assert "the plan is outdated: the project's state moved since it was computed" in r.stdout
    assert "the state changed since the plan was computed" not in r.stdout
    assert any(
        "dave" in str(c["body"]) and "outdated" in str(c["body"]) for c in fake.bot_comments(2)
    )

    # the re-plan shows bob's review as outdated and waits for a new approval
    r = world.run("pull_request", world.pr_event("synchronize", 2), head2)
    assert r.code == 0, r.stdout + r.stderr
    body, meta2b = sticky(fake, 2)
    assert meta2b.plan_hash != meta2.plan_hash and meta2b.base_state != meta2.base_state
    assert "Outdated approving review(s) by @\u200bbob" in body and "Awaiting approval" in body
    assert status(fake, head2)["state"] == "pending"

    # merged anyway: the apply refuses, names the outdated review and changes nothing
    r = merge_and_apply(world, "feat2", 2)
    assert r.code == 1, r.stdout + r.stderr
    assert "no valid approval" in r.stderr and "outdated approving review(s) by bob" in r.stderr
    assert world.state_tip() == tip


def test_the_approver_rules_apply_to_plain_reviews(world: World, fake: FakeGitHub) -> None:
    head = open_pr(world, 1, "feat1", 1)
    refused = {
        "alice": "cannot approve its own plan",  # the author
        "reader": "'read' permission",
        "renovate[bot]": "is a bot",
    }
    for user, why in refused.items():
        r = review(world, 1, user, head)
        assert r.outputs["approved"] == "false", user
        assert f"approval by {user} not counted" in r.stdout and why in r.stdout
        assert status(fake, head)["state"] == "pending"
    # last-pusher rule: dave pushed a commit to alice's pull request
    head2 = world.commit("feat1", {"todoapp.manifest.yaml": manifest_variant(2)}, "dave's")
    fake.push_head(1, head2, by="dave")
    assert world.run("pull_request", world.pr_event("synchronize", 1), head2).code == 0
    r = review(world, 1, "dave", head2)
    assert r.outputs["approved"] == "false" and "last-pusher rule" in r.stdout
    # an approving review on the old head is not an approval of this one
    r = review(world, 1, "bob", head)
    assert r.outputs["approved"] == "false" and "is for commit" in r.stdout

    # counted, then withdrawn by a review requesting changes
    assert review(world, 1, "bob", head2).outputs["approved"] == "true"
    assert status(fake, head2)["state"] == "success"
    rv = fake.add_review(1, user="bob", state="CHANGES_REQUESTED", commit_id=head2, body="no")
    r = world.run("pull_request_review", world.review_event(1, rv), head2)
    assert r.code == 0 and r.outputs["approved"] == "false", r.stdout + r.stderr
    assert status(fake, head2)["state"] == "pending"
    r = merge_and_apply(world, "feat1", 1)
    assert r.code == 1 and "no valid approval" in r.stderr
    assert world.state_tip() is None


def test_a_base_branch_setting_turns_plain_reviews_off(tmp_path: Path, fake: FakeGitHub) -> None:
    fake.roles.update(alice="write", bob="write")
    world = make_world(tmp_path, fake, github_settings={"plainReviewApprovals": False})
    head = open_pr(world, 1, "feat1", 1)
    body, _ = sticky(fake, 1)
    assert "a plain approving review counts too" not in body
    r = review(world, 1, "bob", head)
    assert r.outputs["approved"] == "false"
    assert "github.plainReviewApprovals" in r.stdout
    assert "plain approving reviews are off" in str(fake.bot_comments(1)[-1]["body"])
    assert status(fake, head)["state"] == "pending"

    # a PR cannot turn them back on for itself (the setting is read from the base)
    config = json.loads((world.dev / "averos.config.json").read_text(encoding="utf-8"))
    config["github"]["plainReviewApprovals"] = True
    head2 = world.commit("feat1", {"averos.config.json": json.dumps(config)}, "on again")
    fake.push_head(1, head2)
    assert world.run("pull_request", world.pr_event("synchronize", 1), head2).code == 0
    r = review(world, 1, "bob", head2)
    assert r.outputs["approved"] == "false", r.stdout + r.stderr
    r = merge_and_apply(world, "feat1", 1)
    assert r.code == 1 and "no valid approval" in r.stderr  # bob's plain review is ignored

    # the pinned review keeps working
    head3 = world.commit("feat2", {"todoapp.manifest.yaml": manifest_variant(3)}, "k2")
    fake.add_pull(2, author="alice", head_sha=head3, head_ref="feat2")
    assert world.run("pull_request", world.pr_event("opened", 2), head3).code == 0
    assert review(world, 2, "bob", head3, body=world.approve_command(2)).outputs["approved"] == (
        "true"
    )
    assert status(fake, head3)["state"] == "success"


def test_a_plain_review_is_refused_by_the_state_hash_when_no_outdated_mark_was_written(
    world: World, fake: FakeGitHub
) -> None:
    """The second refusal on its own: the state moved, but #2's plan comment was never marked
    outdated (say the apply job died between landing and marking). The review's check of the
    state hash the plan was computed against still refuses it."""
    head1 = open_pr(world, 1, "feat1", 1)
    head2 = open_pr(world, 2, "feat2", 2, base="feat1")
    unmarked = {c["id"]: c["body"] for c in fake.bot_comments(2)}
    review(world, 1, "carol", head1, body=world.approve_command(1))
    assert merge_and_apply(world, "feat1", 1).code == 0
    assert is_outdated(sticky(fake, 2)[0])  # the apply marked it: undo that, as a lost mark
    for c in fake.bot_comments(2):
        if c["id"] in unmarked:
            c["body"] = unmarked[c["id"]]
    assert not is_outdated(sticky(fake, 2)[0])
    tip = world.state_tip()

    r = review(world, 2, "dave", head2)
    assert r.outputs["approved"] == "false"
    assert "outdated: the state changed since the plan was computed" in r.stdout, r.stdout
    assert "the plan is outdated: the project's state moved" not in r.stdout
    assert status(fake, head2)["state"] != "success"
    assert world.state_tip() == tip
