"""The whole flow against a fake GitHub API and a bare origin: plan, approvals (refused and
counted), a new push voiding them, merge → apply, and an unapproved merge refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from averos_ci.review.comment import PlanMeta
from tests.github.gh_fake import BOT, TOKEN, FakeGitHub
from tests.github.gh_world import World, make_world, manifest_variant

pytestmark = pytest.mark.slow


@pytest.fixture
def world(tmp_path: Path, fake: FakeGitHub) -> World:
    fake.roles.update(alice="write", bob="write", reader="read", carol="admin")
    return make_world(tmp_path, fake)


def sticky(fake: FakeGitHub, number: int) -> dict[str, object]:
    found = [c for c in fake.bot_comments(number) if "averos-ci:plan" in str(c["body"])]
    assert len(found) == 1, [c["body"][:80] for c in fake.bot_comments(number)]
    return found[0]


def meta_of(comment: dict[str, object]) -> PlanMeta:
    meta = PlanMeta.decode(str(comment["body"]))
    assert meta is not None
    return meta


def test_pull_request_to_apply(world: World, fake: FakeGitHub) -> None:
    outputs_seen: list[str] = []

    def run(*args: object, **kwargs: object):  # type: ignore[no-untyped-def]
        result = world.run(*args, **kwargs)  # type: ignore[arg-type]
        outputs_seen.extend(
            [result.stdout, result.stderr, result.summary, json.dumps(result.outputs)]
        )
        return result

    # PR opened -> plan comment + pending status
    head1 = world.commit("feat1", {"todoapp.manifest.yaml": manifest_variant(1)}, "add k0")
    fake.add_pull(1, author="alice", head_sha=head1)
    r = run("pull_request", world.pr_event("opened", 1), head1)
    assert r.code == 0, r.stderr
    comment = sticky(fake, 1)
    meta = meta_of(comment)
    assert meta.head_sha == head1 and meta.has_changes and not meta.approvals
    assert r.outputs["plan-hash"] == meta.plan_hash and r.outputs["has-changes"] == "true"
    assert f"`{meta.plan_hash}`" in str(comment["body"])
    assert fake.latest_status(head1)["state"] == "pending"  # type: ignore[index]
    assert fake.latest_status(head1)["context"] == "averos-ci/plan"  # type: ignore[index]
    assert fake.sent("GET", r"/issues/1/comments$"), "comment list was read"

    # a read-only user's approval is ignored, with a short reply
    c = fake.add_comment(1, user="reader", body=world.approve_command(1))
    r = run("issue_comment", world.comment_event(1, c), head1)
    assert r.code == 0, r.stderr
    assert r.outputs["approved"] == "false"
    assert any(
        "reader" in str(x["body"])
        and "not counted" in str(x["body"])
        and "'read' permission" in str(x["body"])
        for x in fake.bot_comments(1)
    )
    assert not meta_of(sticky(fake, 1)).approvals
    assert fake.latest_status(head1)["state"] == "pending"  # type: ignore[index]

    # the author cannot approve their own plan
    c = fake.add_comment(1, user="alice", body=world.approve_command(1))
    r = run("issue_comment", world.comment_event(1, c), head1)
    assert r.code == 0 and r.outputs["approved"] == "false"
    assert any("cannot approve its own plan" in str(x["body"]) for x in fake.bot_comments(1))
    assert fake.latest_status(head1)["state"] == "pending"  # type: ignore[index]

    # a writer's approving review on the planned head counts
    review = fake.add_review(
        1, user="bob", state="APPROVED", commit_id=head1, body=world.approve_command(1)
    )
    r = run("pull_request_review", world.review_event(1, review), head1)
    assert r.code == 0, r.stderr
    assert r.outputs["approved"] == "true"
    assert [a.user for a in meta_of(sticky(fake, 1)).current_approvals()] == ["bob"]
    assert "Approved" in str(sticky(fake, 1)["body"])
    assert fake.latest_status(head1)["state"] == "success"  # type: ignore[index]

    # a new push: the same comment is updated, the approval is void
    first_id = sticky(fake, 1)["id"]
    head2 = world.commit("feat1", {"todoapp.manifest.yaml": manifest_variant(2)}, "add k1")
    fake.push_head(1, head2)
    r = run("pull_request", world.pr_event("synchronize", 1), head2)
    assert r.code == 0, r.stderr
    assert sticky(fake, 1)["id"] == first_id
    meta2 = meta_of(sticky(fake, 1))
    assert meta2.head_sha == head2 and meta2.plan_hash != meta.plan_hash
    assert not meta2.current_approvals()
    assert fake.latest_status(head2)["state"] == "pending"  # type: ignore[index]

    # the old review (commit head1) does not count for head2; re-approval by comment does
    c = fake.add_comment(1, user="bob", body=f"LGTM\n{world.approve_command(1)}")
    r = run("issue_comment", world.comment_event(1, c), head2)
    assert r.code == 0 and r.outputs["approved"] == "true", r.stderr
    assert (c["id"], "+1") in fake.reactions
    assert fake.latest_status(head2)["state"] == "success"  # type: ignore[index]

    # merge -> apply: state.json on averos-state, checkpoints cleared, result comment
    merge1 = world.merge("feat1")
    fake.merge(1, merge1)
    r = run("push", world.push_event(merge1), merge1)
    assert r.code == 0, r.stdout + r.stderr
    assert r.outputs["success"] == "true" and r.outputs["approved"] == "true"
    assert int(r.outputs["succeeded"]) > 0 and r.outputs["failed"] == "0"
    # the job summary: the run's outcome, the approved plan, its counts and every node
    done = int(r.outputs["succeeded"])
    assert "## averos-ci run: ✅ succeeded" in r.summary, r.summary[:500]
    assert f"plan `{meta2.plan_hash[:12]}`" in r.summary
    assert f"| {done} | {done} | 0 | 0 | 0 |" in r.summary
    assert f"<details><summary>Nodes ({done})</summary>" in r.summary
    assert "| translation-entry:fr:extra.k1 | " in r.summary and TOKEN not in r.summary
    files = world.state_files()
    assert "default/state.json" in files
    assert "default/checkpoints.json" not in files and "default/apply.json" not in files
    assert any(p.startswith("default/runs/") for p in files)
    state = json.loads(files["default/state.json"])
    assert state["serial"] == 1
    assert any("Applied plan" in str(x["body"]) for x in fake.bot_comments(1))
    assert Path(r.outputs["junit-path"]).is_file()

    # a second PR merged without approval: refused, state branch unchanged
    head3 = world.commit("feat2", {"todoapp.manifest.yaml": manifest_variant(3)}, "add k2")
    fake.add_pull(2, author="alice", head_sha=head3, head_ref="feat2")
    r = run("pull_request", world.pr_event("opened", 2), head3)
    assert r.code == 0, r.stderr
    tip = world.state_tip()
    merge2 = world.merge("feat2")
    fake.merge(2, merge2)
    r = run("push", world.push_event(merge2, before=merge1), merge2)
    assert r.code == 1, r.stdout + r.stderr
    assert "no valid approval" in r.stderr
    assert world.state_tip() == tip
    assert any("Not applied" in str(x["body"]) for x in fake.bot_comments(2))

    # the token appears in no request body and no output
    assert all(TOKEN not in rec.body for rec in fake.requests)
    assert all(TOKEN not in text for text in outputs_seen)
    assert all(rec.headers.get("X-Github-Api-Version") == "2022-11-28" for rec in fake.requests)
    assert {c["user"]["login"] for c in fake.bot_comments(1)} == {BOT}
