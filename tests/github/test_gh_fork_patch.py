"""A fork pull request with a regenerating adapter: its own run (read-only token) posts
nothing but runs the token-less patch job; the privileged ``workflow_run`` follow-up
(examples/workflows/averos-fork-comment.yml) posts the plan and completes it with that run's
artifact, read as data and bound to the head, the semantic plan and the base state — so a fork
pull request is approvable again, and the apply holds it to the approved full hash.

The file-writing mock (``writeFiles``) stands in for the Angular adapter."""

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
    status,
    sticky,
)
from tests.github.gh_world import World, git, make_world, manifest_variant


def open_fork_pr(world: World, number: int, manifest: str) -> str:
    """PR ``number`` by alice from a fork, at main's tip (branch ``change-<number>``), with
    ``refs/pull/<number>/head`` as GitHub keeps it; its head."""
    git(world.dev, "checkout", "-q", "main")
    git(world.dev, "pull", "-q", "--ff-only", "origin", "main")
    world.fake.base_sha = git(world.dev, "rev-parse", "HEAD")
    branch = f"change-{number}"
    head = world.commit(branch, {"todoapp.manifest.yaml": manifest}, f"manifest v{number}")
    world.fake.add_pull(number, author="alice", head_sha=head, head_ref=branch, fork=True)
    git(world.dev, "push", "-q", "origin", f"{head}:refs/pull/{number}/head")
    return head


@pytest.fixture
def world(tmp_path: Path, fake: FakeGitHub) -> World:
    """Main holds the generated application of PR #1, applied and committed back: the next
    plans have a workspace to merge into."""
    fake.roles.update(alice="write", bob="write")
    world = make_world(tmp_path, fake, adapter_options={"writeFiles": True})
    return apply_first_pr(world)


def test_fork_pr_patch_in_its_run_completed_by_the_follow_up_approved_and_applied(
    world: World, fake: FakeGitHub
) -> None:
    head = open_fork_pr(world, 2, manifest_variant(2))
    wf = world.plan_workflow(2, head)
    assert wf.plan.code == 0, wf.plan.stdout + wf.plan.stderr
    assert wf.plan.outputs["patch-needed"] == "true"  # the patch job runs for a fork too
    assert not fake.bot_comments(2) and fake.latest_status(head) is None  # read-only token
    assert wf.patch is not None and wf.patch.code == 0, wf.patch.stdout + wf.patch.stderr
    assert wf.complete is not None and wf.complete.code == 0, wf.complete.stderr
    assert "averos-fork-comment.yml" in wf.complete.stdout and not fake.bot_comments(2)
    semantic = wf.plan.outputs["plan-hash"]

    follow = world.fork_follow_up(head, "change-2", wf.artifact)
    assert follow.plan.code == 0, follow.plan.stdout + follow.plan.stderr
    assert follow.plan.outputs["plan-hash"] == semantic  # posted pending first
    assert follow.complete.code == 0, follow.complete.stdout + follow.complete.stderr
    body, meta = sticky(fake, 2)
    assert len(fake.bot_comments(2)) == 1
    assert not meta.pending and meta.semantic_hash == semantic
    assert meta.plan_hash == follow.complete.outputs["plan-hash"] != semantic
    assert COMPUTING not in body and "Code change" in body
    assert f"/averos approve {meta.plan_hash[:12]}" in body
    assert "awaits approval" in status(fake, head)["description"]
    # the fork's tree was never checked out in the privileged job
    main = git(world.origin, "rev-parse", "refs/heads/main")
    assert git(follow.checkout, "rev-parse", "HEAD") == main
    assert git(follow.checkout, "status", "--porcelain") == ""

    r = approve(world, 2, "bob", head)
    assert r.outputs["approved"] == "true", r.stdout + r.stderr
    assert status(fake, head)["state"] == "success"
    applied = merge_and_apply(world, "change-2", 2)
    assert applied.code == 0, applied.stdout + applied.stderr
    assert f"plan {meta.plan_hash} approved by bob" in applied.stdout
    assert "applied the code change" in applied.stdout


def _wrong_head(path: Path) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    data["headSha"] = "b" * 40
    path.write_text(json.dumps(data), encoding="utf-8")


@pytest.mark.parametrize("forged", ["wrong head", "missing"])
def test_a_forged_or_missing_artifact_in_the_fork_follow_up_is_refused(
    world: World, fake: FakeGitHub, forged: str
) -> None:
    head = open_fork_pr(world, 2, manifest_variant(2))
    wf = world.plan_workflow(2, head)
    assert wf.artifact is not None, wf.plan.stdout + wf.plan.stderr
    if forged == "wrong head":
        _wrong_head(wf.artifact)
    follow = world.fork_follow_up(head, "change-2", None if forged == "missing" else wf.artifact)
    assert follow.plan.code == 0, follow.plan.stderr
    r = follow.complete
    assert r.code == 2, r.stdout + r.stderr
    assert "Traceback" not in r.stderr
    expected = "computed for head bbbbbbbbbbbb" if forged == "wrong head" else "cannot read"
    assert expected in r.stderr and "refused" in r.stderr + status(fake, head)["description"]
    assert status(fake, head)["state"] == "failure"
    body, meta = sticky(fake, 2)
    assert meta.pending and "Code change" not in body  # nothing approvable was published
    c = fake.add_comment(2, user="bob", body=f"/averos approve {meta.plan_hash[:12]}")
    r = world.run("issue_comment", world.comment_event(2, c), head, command="approve")
    assert r.outputs.get("approved") != "true"
    assert status(fake, head)["state"] != "success"


def test_the_follow_up_without_a_code_change_to_add(tmp_path: Path, fake: FakeGitHub) -> None:
    """No workspace yet: the fork's run uploads no artifact, and ``complete`` (no output of
    the plan run crosses runs) finds the comment complete rather than failing the status.
    A ``workflow_run`` of a same-repository run completes nothing, as before."""
    fake.roles.update(alice="write", bob="write")
    world = make_world(tmp_path, fake, adapter_options={"writeFiles": True})
    head = open_fork_pr(world, 1, manifest_variant(1))
    wf = world.plan_workflow(1, head)
    assert wf.plan.outputs["patch-needed"] == "false" and wf.patch is None
    follow = world.fork_follow_up(head, "change-1", None)
    assert follow.complete.code == 0, follow.complete.stdout + follow.complete.stderr
    assert "no code change to add" in follow.complete.stdout
    _, meta = sticky(fake, 1)
    assert not meta.pending and status(fake, head)["state"] == "pending"
    payload = {
        "action": "completed",
        "workflow_run": {
            "event": "pull_request",
            "head_sha": head,
            "head_branch": "change-1",
            "head_repository": {"full_name": fake.repo, "owner": {"login": "someone"}},
        },
        "repository": world.push_event(git(world.origin, "rev-parse", "main"))["repository"],
    }
    r = world.run("workflow_run", payload, head, command="complete")
    assert r.code == 0 and "'workflow_run' event: no plan to complete" in r.stdout, r.stderr
