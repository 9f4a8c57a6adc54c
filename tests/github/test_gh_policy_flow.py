"""The policy in the GitHub flow, end to end on the fake GitHub API and a bare origin: the base
branch's ``policy`` is listed in the plan comment, a violation fails the status and refuses
the apply, and the approval requirements gate the status and the apply; refusals are JUnit
failures. Each rule has a violating and a passing case (the local ``plan --policy`` cases are
in tests/policy/)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.github.gh_fake import FakeGitHub
from tests.github.gh_steps import (
    approve,
    merge_and_apply,
    open_pr,
    policy_world,
    status,
    sticky,
)
from tests.github.gh_world import JobResult, World, manifest_variant

pytestmark = pytest.mark.slow

UPDATED_K0 = manifest_variant(1).replace("localeValue: V0", "localeValue: W0")


def junit_failures(r: JobResult) -> dict[str, str]:
    """testcase name -> failure message of the JUnit report the step wrote."""
    root = ET.parse(r.outputs["junit-path"]).getroot()
    return {
        str(case.get("name")): str(failure.get("message"))
        for case in root.iter("testcase")
        for failure in case.iter("failure")
    }


def assert_refused(world: World, r: JobResult, rule: str, *, tip: str | None) -> None:
    assert r.code == 1, r.stdout + r.stderr
    assert rule in r.stderr and r.outputs["success"] == "false"
    assert rule in junit_failures(r)
    assert world.state_tip() == tip  # nothing applied
    number = world.fake.pulls[max(world.fake.pulls)]["number"]
    assert any("Not applied" in str(c["body"]) for c in world.fake.bot_comments(number))


def test_max_nodes(tmp_path: Path, fake: FakeGitHub) -> None:
    world = policy_world(tmp_path, fake, {"maxNodes": 5})
    head = open_pr(world, 1, "feat1", manifest_variant(1))
    body, meta = sticky(fake, 1)
    assert "Policy: failed" in body and "`maxNodes`" in body and "Policy violated" in body
    assert meta.policy == {"violations": ["maxNodes"], "permission": None, "approvals": 1}
    assert status(fake, head)["state"] == "failure"
    assert "violates the policy: maxNodes" in status(fake, head)["description"]
    r = approve(world, 1, "bob", head)  # an approval does not lift a violation
    assert r.outputs["approved"] == "false"
    assert status(fake, head)["state"] == "failure"
    assert_refused(world, merge_and_apply(world, "feat1", 1), "maxNodes", tip=None)

    # passing: the limit raised on the default branch (the PR itself cannot raise it)
    world2 = policy_world(tmp_path, fake, {"maxNodes": 500})
    head = open_pr(world2, 2, "feat2", manifest_variant(1))
    body, _ = sticky(fake, 2)
    assert "**Policy:** passed" in body
    assert status(fake, head)["state"] == "pending"
    assert approve(world2, 2, "bob", head).outputs["approved"] == "true"
    assert status(fake, head)["state"] == "success"
    r = merge_and_apply(world2, "feat2", 2)
    assert r.code == 0, r.stdout + r.stderr


def test_forbid_removals(tmp_path: Path, fake: FakeGitHub) -> None:
    world = policy_world(tmp_path, fake, {"forbidRemovals": True})
    # passing: a plan that removes nothing
    head = open_pr(world, 1, "feat1", manifest_variant(2))
    assert "**Policy:** passed" in sticky(fake, 1)[0]
    approve(world, 1, "bob", head)
    assert merge_and_apply(world, "feat1", 1).code == 0
    tip = world.state_tip()

    # violating: extra.k1 is removed from the manifest
    head = world.commit("feat2", {"todoapp.manifest.yaml": manifest_variant(1)}, "drop k1")
    fake.add_pull(2, author="alice", head_sha=head, head_ref="feat2")
    assert world.run("pull_request", world.pr_event("opened", 2), head).code == 0
    body, _ = sticky(fake, 2)
    assert "`forbidRemovals`" in body and "extra.k1" in body
    assert status(fake, head)["state"] == "failure"
    assert_refused(world, merge_and_apply(world, "feat2", 2), "forbidRemovals", tip=tip)


def test_required_approvals(tmp_path: Path, fake: FakeGitHub) -> None:
    world = policy_world(tmp_path, fake, {"requiredApprovals": 2})
    head = open_pr(world, 1, "feat1", manifest_variant(1))
    body, _ = sticky(fake, 1)
    assert "`requiredApprovals`: 2 distinct approvers" in body
    r = approve(world, 1, "bob", head)
    assert r.outputs["approved"] == "false"
    assert status(fake, head)["state"] == "pending"
    assert "needs 2 distinct approver(s); 1 so far" in status(fake, head)["description"]
    assert "but the policy needs 2 distinct approver" in sticky(fake, 1)[0]
    # violating: merged with one approval
    assert_refused(world, merge_and_apply(world, "feat1", 1), "requiredApprovals", tip=None)

    # passing: two distinct approvers
    head = world.commit("feat2", {"todoapp.manifest.yaml": manifest_variant(2)}, "k1")
    fake.add_pull(2, author="alice", head_sha=head, head_ref="feat2")
    assert world.run("pull_request", world.pr_event("opened", 2), head).code == 0
    approve(world, 2, "bob", head)
    assert approve(world, 2, "dave", head).outputs["approved"] == "true"
    assert status(fake, head)["state"] == "success"
    r = merge_and_apply(world, "feat2", 2)
    assert r.code == 0, r.stdout + r.stderr
    assert "approved by bob, dave" in r.stdout


def test_updates_need_permission(tmp_path: Path, fake: FakeGitHub) -> None:
    world = policy_world(tmp_path, fake, {"updatesNeedPermission": "maintain"})
    # a plan that only creates: a writer's approval is enough
    head = open_pr(world, 1, "feat1", manifest_variant(1))
    assert "updatesNeedPermission" not in sticky(fake, 1)[0]
    assert approve(world, 1, "bob", head).outputs["approved"] == "true"
    assert merge_and_apply(world, "feat1", 1).code == 0
    tip = world.state_tip()

    # violating: an update approved by a writer
    head = open_pr(world, 2, "feat2", UPDATED_K0)
    body, _ = sticky(fake, 2)
    assert "`updatesNeedPermission`" in body and "extra.k0" in body
    assert approve(world, 2, "bob", head).outputs["approved"] == "false"
    assert "'maintain' permission or higher" in status(fake, head)["description"]
    assert_refused(world, merge_and_apply(world, "feat2", 2), "updatesNeedPermission", tip=tip)

    # passing: the same update approved by a maintainer
    head = world.commit("feat3", {"README.md": "again\n"}, "re-plan")
    fake.add_pull(3, author="alice", head_sha=head, head_ref="feat3")
    assert world.run("pull_request", world.pr_event("opened", 3), head).code == 0
    assert approve(world, 3, "maint", head).outputs["approved"] == "true"
    assert status(fake, head)["state"] == "success"
    r = merge_and_apply(world, "feat3", 3)
    assert r.code == 0, r.stdout + r.stderr


def test_protected_elements(tmp_path: Path, fake: FakeGitHub) -> None:
    world = policy_world(
        tmp_path,
        fake,
        {
            "protectedElements": [
                "entity:Payment",
                {"match": "translation-entry:*:extra.k1", "permission": "admin"},
            ]
        },
    )
    # passing: no protected element touched, a writer approves
    head = open_pr(world, 1, "feat1", manifest_variant(1))
    assert "protectedElements" not in sticky(fake, 1)[0]
    assert approve(world, 1, "bob", head).outputs["approved"] == "true"
    assert merge_and_apply(world, "feat1", 1).code == 0
    tip = world.state_tip()

    # violating: extra.k1 is protected (admin); a maintainer is not enough
    head = open_pr(world, 2, "feat2", manifest_variant(2))
    body, _ = sticky(fake, 2)
    assert "`protectedElements`" in body and "extra.k1" in body
    assert approve(world, 2, "maint", head).outputs["approved"] == "false"
    assert status(fake, head)["state"] == "pending"
    assert_refused(world, merge_and_apply(world, "feat2", 2), "protectedElements", tip=tip)

    # passing: approved by an admin
    head = world.commit("feat3", {"README.md": "again\n"}, "re-plan")
    fake.add_pull(3, author="alice", head_sha=head, head_ref="feat3")
    assert world.run("pull_request", world.pr_event("opened", 3), head).code == 0
    assert approve(world, 3, "carol", head).outputs["approved"] == "true"
    r = merge_and_apply(world, "feat3", 3)
    assert r.code == 0, r.stdout + r.stderr
    assert "approved by carol" in r.stdout


def test_a_pull_request_cannot_loosen_its_own_policy(tmp_path: Path, fake: FakeGitHub) -> None:
    world = policy_world(tmp_path, fake, {"maxNodes": 5})
    config = json.loads((world.dev / "averos.config.json").read_text(encoding="utf-8"))
    config["policy"] = {}
    head = world.commit(
        "feat1",
        {"averos.config.json": json.dumps(config), "todoapp.manifest.yaml": manifest_variant(1)},
        "no more policy",
    )
    fake.add_pull(1, author="alice", head_sha=head, head_ref="feat1")
    r = world.run("pull_request", world.pr_event("opened", 1), head)
    assert r.code == 0, r.stdout + r.stderr
    body, _ = sticky(fake, 1)
    assert "`maxNodes`" in body and "`policy`" in body  # the base's policy; the change is named
    assert status(fake, head)["state"] == "failure"
    approve(world, 1, "bob", head)
    assert_refused(world, merge_and_apply(world, "feat1", 1), "maxNodes", tip=None)
