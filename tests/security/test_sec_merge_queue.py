"""Issue 22 (Low): the merge-queue check must be as strict as the apply. It identified the
group's pull requests by ``(#N)`` in commit subjects, which a pull request's title controls,
and ignored the policy's approval requirements. Now the pull requests come from the queue's
own ref and the API, and the policy (violations and requirements) is applied as at apply."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.github.gh_fake import FakeGitHub
from tests.github.gh_steps import approve, open_pr, policy_world
from tests.github.gh_world import World, git, load_payload, make_world, manifest_variant

pytestmark = pytest.mark.slow


def group_commit(world: World, number: int, base: str, files: dict[str, str], subject: str) -> str:
    """A squashed queue commit on ``gh-readonly-queue/main/pr-<number>-<sha>``."""
    git(world.dev, "checkout", "-q", "--detach", base)
    for rel, text in files.items():
        (world.dev / rel).write_text(text, encoding="utf-8")
    git(world.dev, "add", "-A")
    git(
        world.dev,
        "-c",
        "user.name=Queue",
        "-c",
        "user.email=q@example.com",
        "commit",
        "-q",
        "-m",
        subject,
    )
    sha = git(world.dev, "rev-parse", "HEAD")
    git(
        world.dev,
        "push",
        "-q",
        "origin",
        f"{sha}:refs/heads/gh-readonly-queue/main/pr-{number}-{sha}",
    )
    git(world.dev, "checkout", "-q", "main")
    return sha


def event(world: World, sha: str, number: int) -> dict[str, Any]:
    payload = load_payload("merge_group.checks_requested.json")
    payload["repository"]["full_name"] = world.fake.repo
    payload["merge_group"].update(
        head_sha=sha, head_ref=f"refs/heads/gh-readonly-queue/main/pr-{number}-{sha}"
    )
    return payload


def test_a_pr_title_naming_an_approved_pr_is_not_its_approval(
    tmp_path: Path, fake: FakeGitHub
) -> None:
    fake.roles.update(alice="write", bob="write")
    world = make_world(tmp_path, fake)
    head1 = open_pr(world, 1, "feat1", 1)
    approve(world, 1, "bob", head1)
    # #2 makes the same change, unapproved, titled "... (#1)"; the queue squashes it
    head2 = world.commit("feat2", {"todoapp.manifest.yaml": manifest_variant(1)}, "same")
    fake.add_pull(2, author="alice", head_sha=head2, head_ref="feat2")
    main = world.branch_sha("main") or ""
    group = group_commit(
        world, 2, main, {"todoapp.manifest.yaml": manifest_variant(1)}, "Same change (#1) (#2)"
    )
    r = world.run("merge_group", event(world, group, 2), group, command="plan")
    assert r.code == 1, r.stdout + r.stderr
    st = fake.context_status(group, "averos-ci/plan")
    assert st is not None and st["state"] == "failure", st


def test_the_policys_approval_requirements_hold_in_the_queue(
    tmp_path: Path, fake: FakeGitHub
) -> None:
    world = policy_world(tmp_path, fake, {"requiredApprovals": 2})
    head1 = open_pr(world, 1, "feat1", 1)
    approve(world, 1, "bob", head1)  # one approval of the two required
    main = world.branch_sha("main") or ""
    group = group_commit(
        world, 1, main, {"todoapp.manifest.yaml": manifest_variant(1)}, "One entry (#1)"
    )
    r = world.run("merge_group", event(world, group, 1), group, command="plan")
    assert r.code == 1, r.stdout + r.stderr
    st = fake.context_status(group, "averos-ci/plan")
    assert st is not None and st["state"] == "failure", st
