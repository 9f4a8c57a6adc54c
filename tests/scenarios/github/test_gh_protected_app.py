"""A protected default branch with a GitHub App in its ruleset's bypass list: three pull
requests, each planned, approved (one review), merged and applied, and each generated commit
lands on main pushed by the App — no human step but "approve" and "merge"
(docs/how-to/protected-branches.md). The origin is served over smart HTTP and refuses the
bot's pushes to main; the merge box wants the plan status on the head and an approval of the
current head (:mod:`tests.github.gh_protected`). The jobs run as separate processes with the
file-writing mock adapter.

Without the App (no push token, or an App the ruleset does not let through) the push is
refused and the generated files wait in a pull request: the fallback
``tests/scenarios/github/test_gh_keep.py`` tests in full; here only that it still happens
over the real refusal."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.github.gh_fake import BOT, FakeGitHub, MergeRefused
from tests.github.gh_protected import APP, APP_TOKEN, ProtectedWorld, serving
from tests.github.gh_steps import sticky
from tests.github.gh_world import JobResult, git, manifest_variant

pytestmark = pytest.mark.slow


@pytest.fixture
def world(tmp_path: Path, fake: FakeGitHub) -> Iterator[ProtectedWorld]:
    fake.roles.update(alice="write", bob="write")
    root = tmp_path / "world"
    root.mkdir()
    with serving(root / "origin.git", fake.repo) as server:
        yield ProtectedWorld(
            root,
            fake,
            # progress is pushed once at the end: each push is a round of git http-backend
            github_settings={"progressIntervalSeconds": 600},
            adapter_options={"writeFiles": True},
            server_url=server.url,
        )


def open_pr(world: ProtectedWorld, number: int) -> str:
    """alice's PR ``number`` from main's tip (``number`` extra entries), planned; its head."""
    git(world.dev, "checkout", "-q", "main")
    git(world.dev, "pull", "-q", "--ff-only", "origin", "main")
    world.fake.base_sha = git(world.dev, "rev-parse", "HEAD")
    files = {"todoapp.manifest.yaml": manifest_variant(number)}
    head = world.commit(f"feat{number}", files, f"change {number}")
    world.fake.add_pull(number, author="alice", head_sha=head, head_ref=f"feat{number}")
    plan(world, number, head, first=number == 1)
    return head


def plan(
    world: ProtectedWorld, number: int, head: str, *, first: bool, action: str = "opened"
) -> None:
    """The plan workflow's three jobs (plan, patch without a token, complete): once main holds
    the generated application, the plan's code change is computed and shown before approval."""
    wf = world.plan_workflow(number, head, action=action)
    for job in (wf.plan, wf.patch, wf.complete):
        assert job is None or job.code == 0, job.stdout + job.stderr
    if first:  # no workspace yet: nothing to merge, the plan needs no code change
        assert wf.patch is None
        return
    assert wf.patch is not None and wf.complete is not None, wf.plan.stdout
    assert wf.plan.outputs["patch-needed"] == "true"
    _, meta = sticky(world.fake, number)
    assert not meta.pending and meta.plan_hash == wf.complete.outputs["plan-hash"]
    assert meta.semantic_hash == wf.plan.outputs["plan-hash"] != meta.plan_hash


def approve(world: ProtectedWorld, number: int, head: str) -> None:
    """bob presses "Approve" (a plain approving review: no `/averos approve` line)."""
    review = world.fake.add_review(number, user="bob", state="APPROVED", commit_id=head)
    r = world.run("pull_request_review", world.review_event(number, review), head)
    assert r.code == 0 and r.outputs["approved"] == "true", r.stdout + r.stderr


def merge_and_apply(world: ProtectedWorld, number: int) -> tuple[str, JobResult]:
    """bob presses "Merge"; the push workflow it triggers applies. The merge commit."""
    merge = world.merge_pr(number)
    push = world.merges[-1]
    assert world.triggered(push)  # a person's merge starts the apply workflow
    r = world.run("push", world.push_event(merge, before=push.old), merge)
    assert r.code == 0, r.stdout + r.stderr
    assert r.outputs["success"] == "true", r.outputs
    assert APP_TOKEN not in r.stdout + r.stderr + r.summary  # masked, never printed
    return merge, r


def test_three_prs_land_on_a_protected_main_with_approve_and_merge_only(
    world: ProtectedWorld, fake: FakeGitHub
) -> None:
    heads: dict[int, str] = {}
    for number in (1, 2, 3):
        head = open_pr(world, number)
        with pytest.raises(MergeRefused, match="averos-ci/plan"):  # the plan awaits approval
            world.merge_pr(number)
        approve(world, number, head)
        if number == 2:  # a new head after the approval: the approval is stale
            files = {"todoapp.manifest.yaml": manifest_variant(2) + "# reviewed twice\n"}
            head = world.commit("feat2", files, "touch up")
            fake.push_head(2, head)
            plan(world, 2, head, first=False, action="synchronize")
            assert fake.context_status(head, "averos-ci/plan")["state"] == "pending"  # type: ignore[index]
            assert [rv["state"] for rv in fake.reviews[2]] == ["DISMISSED"]  # stale
            with pytest.raises(MergeRefused):
                world.merge_pr(2)
            approve(world, 2, head)
        heads[number] = head
        merge, r = merge_and_apply(world, number)
        if number > 1:  # exactly the approved plan, its code change included
            assert "applied the code change" in r.stdout, r.stdout

        # the generated commit is on main, on top of the merge, pushed by the App
        tip = world.branch_sha("main")
        assert git(world.origin, "rev-parse", "main^") == merge
        assert "[skip ci]" in git(world.origin, "log", "-1", "--format=%s", "main")
        assert git(world.origin, "ls-tree", "-r", "--name-only", "main", "workspace/")
        (landed,) = [p for p in world.pushes() if p.ref == "refs/heads/main" and p.new == tip]
        assert landed.by == APP and landed.old == merge
        assert not world.triggered(landed)  # [skip ci]: no apply of the apply
        # the state records it as where the application lives; no fallback PR
        state = json.loads(world.state_files()["default/state.json"])
        assert state["workspace"]["commit"] == tip and state["workspace"]["pullRequest"] is None
        assert not fake.created_pulls
        result = [
            str(c["body"]) for c in fake.bot_comments(number) if "averos-ci:result" in c["body"]
        ]
        assert result and "Generated files committed to `main`" in result[-1], result

    # a bot commit never lands on a user's PR: each branch still ends at alice's commit
    for number, head in heads.items():
        assert world.branch_sha(f"feat{number}") == head
        assert {c["author"]["login"] for c in fake.pull_commits[number]} == {"alice"}
    pushes = world.pushes()
    assert {p.ref for p in pushes if p.by == BOT} == {"refs/heads/averos-state"}
    assert not any(world.triggered(p) for p in pushes if p.by == BOT)
    assert sorted(p.by for p in pushes if p.ref == "refs/heads/main") == [APP] * 3 + ["bob"] * 3


@pytest.mark.parametrize("setup", ["no push token", "App not in the bypass list"])
def test_without_the_app_the_push_is_refused_and_the_files_wait_in_a_pr(
    world: ProtectedWorld, fake: FakeGitHub, setup: str
) -> None:
    if setup == "no push token":
        world.app_installed = False
    else:
        world.set_bypass(app=False)
    head = open_pr(world, 1)
    approve(world, 1, head)
    merge, r = merge_and_apply(world, 1)
    assert world.branch_sha("main") == merge  # refused: main did not move
    warned = "bypass list" in r.stdout + r.stderr
    assert warned == (setup == "App not in the bypass list"), r.stdout + r.stderr
    assert fake.created_pulls == [2] and fake.pulls[2]["head"]["ref"].startswith("averos/apply-")
    assert not [p for p in world.pushes() if p.by == APP]
    state = json.loads(world.state_files()["default/state.json"])
    assert state["workspace"]["pullRequest"]["number"] == 2
