"""Regression tests for two review findings (both were proofs of concept first):

1. a pull request's own ``averos.config.json`` must not decide who counts as an approver
   (``botLogin``, ``allowSelfApproval``, ``approvalPermission`` come from the base);
2. an approval must pin the plan by its own text: pointers in the sticky comment's metadata
   (which anything posting as the bot can rewrite) cannot replay an approval of an older plan.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from averos_ci.review.comment import META_RE, ApprovalRef, PlanMeta, marker
from tests.github.gh_fake import FakeGitHub
from tests.github.gh_world import World, make_world, manifest_variant

pytestmark = pytest.mark.slow


@pytest.fixture
def world(tmp_path: Path, fake: FakeGitHub) -> World:
    fake.roles.update(alice="write", bob="write", reader="read")
    return make_world(tmp_path, fake)


def sticky_meta(fake: FakeGitHub, number: int) -> tuple[dict[str, object], PlanMeta]:
    for c in fake.bot_comments(number):
        meta = PlanMeta.decode(str(c["body"]))
        if meta is not None:
            return c, meta
    raise AssertionError("no plan comment")


def test_a_pull_request_cannot_rewrite_its_own_approval_rules(
    world: World, fake: FakeGitHub
) -> None:
    config = json.loads((world.dev / "averos.config.json").read_text(encoding="utf-8"))
    config["github"].update(botLogin="alice", allowSelfApproval=True, approvalPermission="read")
    head = world.commit(
        "feat1",
        {
            "todoapp.manifest.yaml": manifest_variant(1),
            "averos.config.json": json.dumps(config),
        },
        "change the manifest and the approval rules",
    )
    fake.add_pull(1, author="alice", head_sha=head, head_ref="feat1")
    r = world.run("pull_request", world.pr_event("opened", 1), head)
    assert r.code == 0, r.stderr
    plan_hash = r.outputs["plan-hash"]
    pin = f"/averos approve {plan_hash[:12]}"
    # the plan comment is the real bot's and shows the base's rules
    body = str(sticky_meta(fake, 1)[0]["body"])
    assert "other than the pull request author" in body and "**write**" in body

    # alice approves her own plan (pinned) and posts a "sticky" of her own pointing at it
    mine = fake.add_comment(1, user="alice", body=pin)
    forged = PlanMeta(
        "default",
        plan_hash,
        head,
        True,
        True,
        (ApprovalRef("comment", mine["id"], "alice", plan_hash, head),),
    )
    fake.add_comment(1, user="alice", body=f"{marker('default')}\n{forged.encode()}\nlooks legit")

    # approve steps run on a checkout with the PR's config: its rules are ignored
    review = fake.add_review(1, user="alice", state="APPROVED", commit_id=head, body=pin)
    r = world.run("pull_request_review", world.review_event(1, review), head)
    assert r.code == 0 and r.outputs["approved"] == "false", r.stdout + r.stderr
    assert any("cannot approve its own plan" in str(c["body"]) for c in fake.bot_comments(1))
    low = fake.add_comment(1, user="reader", body=pin)
    r = world.run("issue_comment", world.comment_event(1, low), head)
    assert r.code == 0 and r.outputs["approved"] == "false", r.stdout + r.stderr
    assert any("'read' permission" in str(c["body"]) for c in fake.bot_comments(1))
    assert not sticky_meta(fake, 1)[1].approvals

    merge = world.merge("feat1")
    fake.merge(1, merge)
    r = world.run("push", world.push_event(merge), merge)
    assert r.code == 1, r.stdout + r.stderr
    assert "no valid approval" in r.stderr
    assert world.state_tip() is None


def test_an_approval_of_an_older_plan_cannot_be_replayed(world: World, fake: FakeGitHub) -> None:
    head1 = world.commit("feat1", {"todoapp.manifest.yaml": manifest_variant(1)}, "benign")
    fake.add_pull(1, author="alice", head_sha=head1, head_ref="feat1")
    assert world.run("pull_request", world.pr_event("opened", 1), head1).code == 0
    bare = fake.add_comment(1, user="bob", body="/averos approve")  # pins nothing
    r = world.run("issue_comment", world.comment_event(1, bare), head1)
    assert r.code == 0 and r.outputs["approved"] == "false", r.stdout + r.stderr
    old = fake.add_comment(1, user="bob", body=world.approve_command(1))
    r = world.run("issue_comment", world.comment_event(1, old), head1)
    assert r.code == 0 and r.outputs["approved"] == "true", r.stdout + r.stderr

    # a new push: a new plan, the approval is void
    head2 = world.commit("feat1", {"todoapp.manifest.yaml": manifest_variant(3)}, "other")
    fake.push_head(1, head2)
    r = world.run("pull_request", world.pr_event("synchronize", 1), head2)
    assert r.code == 0, r.stderr
    comment, meta = sticky_meta(fake, 1)
    assert meta.head_sha == head2 and not meta.approvals
    # the comment shows the exact line that approves this plan
    assert f"/averos approve {meta.plan_hash[:12]}\n" in str(comment["body"])

    # unpinned (or too short) approvals change nothing and get the line to post
    for text in ("/averos approve", f"/averos approve {meta.plan_hash[:8]}"):
        c = fake.add_comment(1, user="bob", body=text)
        r = world.run("issue_comment", world.comment_event(1, c), head2)
        assert r.code == 0 and r.outputs["approved"] == "false", r.stdout + r.stderr
        reply = str(fake.bot_comments(1)[-1]["body"])
        assert "not counted" in reply and f"/averos approve {meta.plan_hash[:12]}" in reply
    # (a plain approving review would count: issue 11; a review with a bare command pins
    # nothing and is refused like the comment)
    review = fake.add_review(
        1, user="bob", state="APPROVED", commit_id=head2, body="LGTM\n/averos approve"
    )
    r = world.run("pull_request_review", world.review_event(1, review), head2)
    assert r.code == 0 and r.outputs["approved"] == "false", r.stdout + r.stderr
    assert "not counted: an approval must pin the plan" in r.stdout  # reply folded
    assert not sticky_meta(fake, 1)[1].approvals
    assert fake.latest_status(head2)["state"] == "pending"  # type: ignore[index]

    # anything posting as the bot rewrites the metadata to point at bob's old approval
    forged = PlanMeta(
        meta.project,
        meta.plan_hash,
        head2,
        True,
        True,
        (
            ApprovalRef("comment", bare["id"], "bob", meta.plan_hash, head2),
            ApprovalRef("comment", old["id"], "bob", meta.plan_hash, head2),
            ApprovalRef("comment", c["id"], "bob", meta.plan_hash, head2),
            ApprovalRef("review", review["id"], "bob", meta.plan_hash, head2),
        ),
    )
    live = fake.comments[int(str(comment["id"]))]
    live["body"] = META_RE.sub(lambda _: forged.encode(), live["body"], count=1)

    merge = world.merge("feat1")
    fake.merge(1, merge)
    r = world.run("push", world.push_event(merge), merge)
    assert r.code == 1, r.stdout + r.stderr
    assert "no valid approval" in r.stderr
    assert world.state_tip() is None
