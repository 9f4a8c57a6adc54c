"""Issue 22 High 1, as the attack: a write user edits the bot's sticky comment (GitHub keeps
its author, ``github-actions[bot]``) and forges its hidden metadata — ``planAt`` (Repro A),
``headAt`` and an approval pointer (Repro B). Every fact an approval depends on now comes
from the commit statuses the bot created on each head (append-only, ``creator`` checked)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from averos_ci.review.comment import ApprovalRef, restamp
from tests.github.gh_fake import FakeGitHub
from tests.github.gh_steps import merge_and_apply, sticky
from tests.github.gh_world import World, git, manifest_variant

pytestmark = pytest.mark.slow


def forge(fake: FakeGitHub, number: int, **changes: object) -> None:
    """The PR author edits the bot's plan comment in the web UI, changing its metadata."""
    body, meta = sticky(fake, number)
    (cid,) = [c["id"] for c in fake.bot_comments(number) if c["body"] == body]
    forged = replace(meta, **changes)  # type: ignore[arg-type]
    fake.edit_comment(
        cid, restamp(body, forged, "<!-- averos-ci:status -->\n✅ ok\n<!-- /averos-ci:status -->")
    )


def test_repro_a_a_forged_plan_at_does_not_carry_an_outdated_review(
    world: World, fake: FakeGitHub
) -> None:
    head1 = world.commit("feat1", {"todoapp.manifest.yaml": manifest_variant(1)}, "one")
    fake.add_pull(1, author="alice", head_sha=head1, head_ref="feat1")
    assert world.run("pull_request", world.pr_event("opened", 1), head1).code == 0
    head2 = world.commit(
        "feat2", {"todoapp.manifest.yaml": manifest_variant(2)}, "two", base="feat1"
    )
    fake.add_pull(2, author="alice", head_sha=head2, head_ref="feat2")
    r = world.run("pull_request", world.pr_event("opened", 2), head2)
    assert r.code == 0, r.stderr
    p1_of_2 = r.outputs["plan-hash"]
    # bob approves #2 with a plain review while P1 is shown
    review = fake.add_review(2, user="bob", state="APPROVED", commit_id=head2)
    r = world.run("pull_request_review", world.review_event(2, review), head2)
    assert r.outputs["approved"] == "true", r.stdout + r.stderr
    # #1 is approved, merged and applied
    c = fake.add_comment(1, user="bob", body=world.approve_command(1))
    assert world.run("issue_comment", world.comment_event(1, c), head1).code == 0
    assert merge_and_apply(world, "feat1", 1).code == 0
    # #2 re-plans to P2: bob's review is outdated
    r = world.run("pull_request", world.pr_event("reopened", 2), head2)
    assert r.code == 0, r.stderr
    p2 = r.outputs["plan-hash"]
    assert p2 != p1_of_2 and r.outputs["approved"] == "false", r.stdout
    # the author edits #2's comment: planAt far in the past
    forge(fake, 2, plan_at="2000-01-01T00:00:00Z")
    r = merge_and_apply(world, "feat2", 2)
    assert f"plan {p2} approved by bob" not in r.stdout, r.stdout
    assert r.code == 1, r.stdout + r.stderr


def test_repro_b_a_forged_head_at_and_pointer_do_not_carry_an_approval(
    world: World, fake: FakeGitHub
) -> None:
    head1 = world.commit("feat1", {"todoapp.manifest.yaml": manifest_variant(1)}, "one")
    fake.add_pull(1, author="alice", head_sha=head1, head_ref="feat1")
    assert world.run("pull_request", world.pr_event("opened", 1), head1).code == 0
    head_at_1 = sticky(fake, 1)[1].head_at
    bob = fake.add_comment(1, user="bob", body=world.approve_command(1))
    r = world.run("issue_comment", world.comment_event(1, bob), head1)
    assert r.outputs["approved"] == "true", r.stdout + r.stderr
    head2 = world.commit("feat1", {"NOTES.md": "any file\n"}, "head 2")
    fake.push_head(1, head2)
    r = world.run("pull_request", world.pr_event("synchronize", 1), head2)
    assert r.outputs["approved"] == "false", r.stdout
    plan = r.outputs["plan-hash"]
    # the author edits the comment: headAt back, a pointer to bob's comment for head 2
    forge(
        fake,
        1,
        head_at=head_at_1,
        approvals=(ApprovalRef("comment", int(bob["id"]), "bob", plan, head2),),
    )
    git(world.dev, "push", "-q", "origin", f"{head2}:refs/pull/1/head")  # as GitHub keeps it
    c = fake.add_comment(1, user="alice", body="/averos plan")
    r = world.run("issue_comment", world.comment_event(1, c), head2)
    assert r.code == 0, r.stdout + r.stderr
    status = fake.context_status(head2, "averos-ci/plan")
    assert status is not None and status["state"] != "success", status
    r = merge_and_apply(world, "feat1", 1)
    assert "approved by bob" not in r.stdout, r.stdout
    assert r.code == 1, r.stdout + r.stderr


def test_an_approval_in_the_same_second_as_the_plan_record_is_refused() -> None:
    """GitHub's times have 1-second resolution and comments and statuses share no sequence:
    "after the plan was published" is strict, so a tie is refused (documented), never counted."""
    from averos_ci.review.approvals import comment_is_approval

    plan = "ab" * 32
    at = "2026-01-01T00:00:10Z"
    comment = {"body": f"/averos approve {plan[:12]}", "created_at": at, "updated_at": at}
    refusal = comment_is_approval(comment, plan_hash=plan, head_at=at)
    assert refusal is not None and "before the plan" in refusal.reason
    later = {**comment, "created_at": "2026-01-01T00:00:11Z", "updated_at": "2026-01-01T00:00:11Z"}
    assert comment_is_approval(later, plan_hash=plan, head_at=at) is None
