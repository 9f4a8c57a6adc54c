"""The catch-up with a regenerating adapter (the file-writing mock stands in for the Angular
one): the recomputed plan it publishes on a merged pull request carries its code change and
the full planHash — computed in-process, since after the merge the checkout is the default
branch's, the code the apply itself runs — so approving it there lets the strict apply run.
A ``/averos plan`` re-plan of an open pull request would have to run the head's code: it
stays pending and says how to get the code change computed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from averos_ci.review.comment import COMPUTING
from tests.github.gh_fake import FakeGitHub
from tests.github.gh_steps import (
    apply_first_pr,
    approve,
    merge_and_apply,
    open_pr_from_main,
    status,
    sticky,
)
from tests.github.gh_world import World, git, make_world, manifest_variant

pytestmark = pytest.mark.slow


@pytest.fixture
def world(tmp_path: Path, fake: FakeGitHub) -> World:
    """Main holds the generated application of PR #1, applied and committed back."""
    fake.roles.update(alice="write", bob="write")
    world = make_world(tmp_path, fake, adapter_options={"writeFiles": True})
    apply_first_pr(world)
    assert git(world.origin, "ls-tree", "-r", "--name-only", "main", "--", "workspace")
    return world


def serial(world: World) -> int:
    return int(json.loads(world.state_files()["default/state.json"])["serial"])


def test_a_merge_the_catch_up_stopped_at_is_applied_once_its_full_recomputed_plan_is_approved(
    world: World, fake: FakeGitHub
) -> None:
    # merged while its code change was still being computed: nothing approved it
    head = open_pr_from_main(world, 2, manifest_variant(2))
    r = world.run("pull_request", world.pr_event("opened", 2), head, command="plan")
    assert r.outputs["patch-needed"] == "true"
    semantic = r.outputs["plan-hash"]
    refused = merge_and_apply(world, "change-2", 2)
    assert refused.code == 1, refused.stdout + refused.stderr
    assert "still being computed" in refused.stderr
    assert serial(world) == 1

    # the recomputed plan on the merged PR: complete, its code change shown and hashed
    body, meta = sticky(fake, 2)
    assert "Not applied after the merge" in body and COMPUTING not in body
    assert "Code change" in body
    assert not meta.pending and meta.semantic_hash == semantic != meta.plan_hash
    assert f"approve the recomputed plan on #2 (/averos approve {meta.plan_hash[:12]})" in (
        refused.stderr
    )
    assert status(fake, head)["state"] == "pending"
    assert meta.plan_hash[:12] in status(fake, head)["description"]

    # an approval of the recomputed plan runs the catch-up: exactly that plan is applied
    main = world.branch_sha("main")
    assert main is not None
    c = fake.add_comment(2, user="bob", body=world.approve_command(2))
    r = world.run("issue_comment", world.comment_event(2, c), main, command="apply")
    assert r.code == 0, r.stdout + r.stderr
    assert "approval by bob counted" in r.stdout
    assert f"plan {meta.plan_hash} approved by bob" in r.stdout
    assert "applied the code change" in r.stdout
    assert r.outputs["success"] == "true"
    assert serial(world) == 2
    assert any("Applied plan" in str(x["body"]) for x in fake.bot_comments(2))


def test_an_approval_of_the_semantic_hash_of_a_recomputed_plan_is_not_counted(
    world: World, fake: FakeGitHub
) -> None:
    head = open_pr_from_main(world, 2, manifest_variant(2))
    r = world.run("pull_request", world.pr_event("opened", 2), head, command="plan")
    semantic = r.outputs["plan-hash"]
    assert merge_and_apply(world, "change-2", 2).code == 1
    tip = world.state_tip()
    c = fake.add_comment(2, user="bob", body=f"/averos approve {semantic[:12]}")
    r = world.run("issue_comment", world.comment_event(2, c), head, command="apply")
    assert r.code == 1 and "approval by bob not counted" in r.stdout, r.stdout + r.stderr
    assert "applied the code change" not in r.stdout
    assert world.state_tip() == tip and serial(world) == 1


def test_a_re_plan_of_an_open_pull_request_stays_pending_and_says_how_to_complete_it(
    world: World, fake: FakeGitHub
) -> None:
    head = open_pr_from_main(world, 2, manifest_variant(2))
    wf = world.plan_workflow(2, head)
    assert wf.complete is not None and wf.complete.code == 0, wf.plan.stdout + wf.plan.stderr
    git(world.dev, "push", "-q", "origin", f"{head}:refs/pull/2/head")  # as GitHub keeps it
    main = world.branch_sha("main")
    assert main is not None
    c = fake.add_comment(2, user="alice", body="/averos plan")
    r = world.run("issue_comment", world.comment_event(2, c), main, command="approve")
    assert r.code == 0, r.stdout + r.stderr
    body, meta = sticky(fake, 2)
    assert meta.pending and COMPUTING in body
    assert "re-run the latest *averos-ci plan* run of this head, or push" in body
    assert "/averos approve" not in body


def test_an_approved_code_change_the_workspace_moved_under_is_recomputed_for_a_new_approval(
    world: World, fake: FakeGitHub
) -> None:
    head = open_pr_from_main(world, 2, manifest_variant(2))
    wf = world.plan_workflow(2, head)
    assert wf.complete is not None and wf.complete.code == 0, wf.plan.stdout + wf.plan.stderr
    _, shown = sticky(fake, 2)
    assert approve(world, 2, "bob", head).outputs["approved"] == "true"
    # a hand edit lands on main after the approval, in a file the code change touches
    git(world.dev, "checkout", "-q", "main")
    git(world.dev, "pull", "-q", "--ff-only", "origin", "main")
    fr = "workspace/src/assets/i18n/fr.txt"
    text = (world.dev / fr).read_text(encoding="utf-8")
    world.commit("main", {fr: "# USER HAND EDIT\n" + text}, "hand edit")
    refused = merge_and_apply(world, "change-2", 2)
    assert refused.code == 2, refused.stdout + refused.stderr
    assert "nothing was executed" in refused.stderr and "the workspace moved" in refused.stderr
    assert serial(world) == 1
    body, meta = sticky(fake, 2)
    assert "Not applied after the merge" in body and not meta.pending
    assert meta.semantic_hash == shown.semantic_hash and meta.plan_hash != shown.plan_hash

    main = world.branch_sha("main")
    assert main is not None
    c = fake.add_comment(2, user="bob", body=world.approve_command(2))
    r = world.run("issue_comment", world.comment_event(2, c), main, command="apply")
    assert r.code == 0, r.stdout + r.stderr
    assert f"plan {meta.plan_hash} approved by bob" in r.stdout
    assert "applied the code change" in r.stdout and serial(world) == 2
    merged = git(world.origin, "show", f"main:{fr}")
    assert merged.startswith("# USER HAND EDIT\n") and "extra.k1" in merged
