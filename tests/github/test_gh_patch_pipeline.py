"""A regenerating adapter in CI: the plan job posts the semantic plan at once ("computing the
code change…"), the patch job computes the code change without a token, the complete job
adds it; approvals bind to the full planHash and the apply executes exactly that plan.

The file-writing mock (``writeFiles``) stands in for the Angular adapter."""

from __future__ import annotations

from pathlib import Path

import pytest

from averos_ci.review.comment import COMPUTING
from tests.github.gh_fake import FakeGitHub
from tests.github.gh_steps import (
    approve,
    merge_and_apply,
    open_pr_from_main,
    status,
    sticky,
)
from tests.github.gh_world import World, git, make_world, manifest_variant


@pytest.fixture
def world(tmp_path: Path, fake: FakeGitHub) -> World:
    """Main holds the generated application of PR #1 (one extra entry), applied and committed
    back: the next plans have a workspace to merge into."""
    fake.roles.update(alice="write", bob="write")
    world = make_world(tmp_path, fake, adapter_options={"writeFiles": True})
    head = open_pr_from_main(world, 1, manifest_variant(1))
    first = world.plan_workflow(1, head)
    assert first.plan.code == 0, first.plan.stdout + first.plan.stderr
    assert first.plan.outputs["patch-needed"] == "false"  # no workspace yet: nothing to merge
    assert first.patch is None
    approve(world, 1, "bob", head)
    r = merge_and_apply(world, "change-1", 1)
    assert r.code == 0, r.stdout + r.stderr
    assert git(world.origin, "ls-tree", "-r", "--name-only", "main", "--", "workspace")
    return world


def test_the_plan_is_posted_at_once_and_cannot_be_approved_before_its_code_change(
    world: World, fake: FakeGitHub
) -> None:
    head = open_pr_from_main(world, 2, manifest_variant(2))
    r = world.run("pull_request", world.pr_event("opened", 2), head, command="plan")
    assert r.code == 0, r.stdout + r.stderr
    assert r.outputs["patch-needed"] == "true"
    body, meta = sticky(fake, 2)
    assert meta.pending and COMPUTING in body
    assert "/averos approve" not in body  # nothing to pin yet
    assert status(fake, head)["state"] == "pending"
    assert "computing the code change" in status(fake, head)["description"]
    c = fake.add_comment(2, user="bob", body=f"/averos approve {meta.plan_hash[:12]}")
    r = world.run("issue_comment", world.comment_event(2, c), head, command="approve")
    assert r.outputs["approved"] == "false"
    reply = str(fake.bot_comments(2)[-1]["body"])
    assert "the code change is still being computed" in reply


def test_plan_patch_complete_approve_merge_apply_with_the_strict_hash(
    world: World, fake: FakeGitHub
) -> None:
    head = open_pr_from_main(world, 2, manifest_variant(2))
    wf = world.plan_workflow(2, head)
    assert wf.patch is not None and wf.complete is not None, wf.plan.stdout + wf.plan.stderr
    assert wf.patch.code == 0, wf.patch.stdout + wf.patch.stderr
    assert wf.complete.code == 0, wf.complete.stdout + wf.complete.stderr
    body, meta = sticky(fake, 2)
    semantic = wf.plan.outputs["plan-hash"]
    assert not meta.pending and meta.semantic_hash == semantic
    assert meta.plan_hash == wf.complete.outputs["plan-hash"] != semantic
    assert COMPUTING not in body and "Code change" in body
    assert f"/averos approve {meta.plan_hash[:12]}" in body
    assert status(fake, head)["state"] == "pending"
    assert "awaits approval" in status(fake, head)["description"]
    r = approve(world, 2, "bob", head)
    assert r.outputs["approved"] == "true", r.stdout
    assert status(fake, head)["state"] == "success"
    applied = merge_and_apply(world, "change-2", 2)
    assert applied.code == 0, applied.stdout + applied.stderr
    assert f"plan {meta.plan_hash} approved by bob" in applied.stdout
    assert "applied the code change" in applied.stdout


def test_an_approval_of_the_semantic_plan_never_applies(world: World, fake: FakeGitHub) -> None:
    """Merged while the code change was still being computed: nothing approved it."""
    head = open_pr_from_main(world, 2, manifest_variant(2))
    r = world.run("pull_request", world.pr_event("opened", 2), head, command="plan")
    assert r.outputs["patch-needed"] == "true"
    state_before = world.state_tip()
    applied = merge_and_apply(world, "change-2", 2)
    assert applied.code != 0
    assert "still being computed" in applied.stdout + applied.stderr
    assert "applied the code change" not in applied.stdout
    assert world.state_files()  # the state is the first apply's
    assert world.state_tip() == state_before
