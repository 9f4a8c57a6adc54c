"""Finding 2 (Medium), as the attack: bob approves head 1; the author pushes head 2 (a config
change that alters what runs, or just another file); bob's approve job is re-run (or finishes
late) and must not count his old comment for head 2, and the merge must not be applied."""

from __future__ import annotations

import json

import pytest

from tests.github.gh_fake import FakeGitHub
from tests.github.gh_world import World, manifest_variant

pytestmark = pytest.mark.slow


def attack(world: World, fake: FakeGitHub, head2_files: dict[str, str]) -> tuple[str, str]:
    head1 = world.commit("feat1", {"todoapp.manifest.yaml": manifest_variant(1)}, "one entry")
    fake.add_pull(1, author="alice", head_sha=head1, head_ref="feat1")
    r = world.run("pull_request", world.pr_event("opened", 1), head1)
    assert r.code == 0, r.stderr
    plan1 = r.outputs["plan-hash"]
    bob = fake.add_comment(1, user="bob", body=world.approve_command(1))
    bob_event = world.comment_event(1, bob)
    r = world.run("issue_comment", bob_event, head1)
    assert r.outputs["approved"] == "true", r.stdout + r.stderr

    head2 = world.commit("feat1", head2_files, "head 2")
    fake.push_head(1, head2)
    r = world.run("pull_request", world.pr_event("synchronize", 1), head2)
    assert r.code == 0, r.stderr
    assert r.outputs["approved"] == "false", r.stdout

    # "Re-run" of bob's approve job (the same event), or the job simply finishing late
    r = world.run("issue_comment", bob_event, head1)
    assert r.outputs.get("approved") != "true", r.stdout + r.stderr
    status = fake.latest_status(head2)
    assert status is not None and status["state"] != "success", status

    merge = world.merge("feat1")
    fake.merge(1, merge)
    r = world.run("push", world.push_event(merge), merge)
    assert r.code == 1, r.stdout + r.stderr
    assert "default/state.json" not in world.state_files(), r.stdout + r.stderr
    return plan1, r.outputs.get("plan-hash", "")


def test_a_config_change_is_a_new_plan_and_voids_the_approval(
    world: World, fake: FakeGitHub
) -> None:
    config = json.loads((world.dev / "averos.config.json").read_text(encoding="utf-8"))
    # what runs changes, the manifest does not (with the Angular adapter: adapterOptions'
    # registry or collection, see tests/plan/test_plan_identity.py)
    config["workspaceRoot"] = "elsewhere"
    config["development"] = True
    plan1, applied = attack(
        world,
        fake,
        {"averos.config.json": json.dumps(config, indent=2), "NOTES.md": "new file\n"},
    )
    assert applied and applied != plan1


def test_an_old_approval_does_not_count_for_a_new_head_with_the_same_plan(
    world: World, fake: FakeGitHub
) -> None:
    plan1, applied = attack(world, fake, {"NOTES.md": "only this file changes\n"})
    assert applied == plan1  # the same plan: only the head (and time) tell them apart
