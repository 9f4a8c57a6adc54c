"""An approval of a plan without changes is not counted (nothing needs one), and the approve
job's outputs say what the plan job's say of that plan: approved, no changes — so a batch of
approve jobs is not reported unapproved because one of its projects has nothing to apply."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.github.gh_fake import FakeGitHub
from tests.github.gh_steps import approve, merge_and_apply, open_pr
from tests.github.gh_world import git, make_world

pytestmark = pytest.mark.slow


def test_approving_a_plan_without_changes_reports_it_approved_as_the_plan_job_does(
    tmp_path: Path, fake: FakeGitHub
) -> None:
    fake.roles.update(alice="write", bob="write")
    world = make_world(tmp_path, fake)
    head = open_pr(world, 1, "feat1", 1)
    approve(world, 1, "bob", head)
    assert merge_and_apply(world, "feat1", 1).code == 0

    # a pull request that leaves the manifest as applied: its plan has nothing to apply
    git(world.dev, "checkout", "-q", "main")
    git(world.dev, "pull", "-q", "--ff-only", "origin", "main")
    fake.base_sha = git(world.dev, "rev-parse", "HEAD")
    head2 = world.commit("notes", {"NOTES.md": "notes\n"}, "notes")
    fake.add_pull(2, author="alice", head_sha=head2, head_ref="notes")
    plan = world.run("pull_request", world.pr_event("opened", 2), head2)
    assert plan.code == 0, plan.stdout + plan.stderr
    assert (plan.outputs["has-changes"], plan.outputs["approved"]) == ("false", "true")

    r = approve(world, 2, "bob", head2)
    assert "nothing to approve" in r.stdout  # the approval itself is not counted
    assert (r.outputs["has-changes"], r.outputs["approved"]) == ("false", "true")
    assert r.outputs["plan-hash"] == plan.outputs["plan-hash"]
