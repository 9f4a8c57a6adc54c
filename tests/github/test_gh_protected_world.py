"""The protected-branch world models what the journey relies on
(:mod:`tests.github.gh_protected`): the origin refuses the bot's pushes to main and takes the
App's, a push made with ``GITHUB_TOKEN`` starts no workflow, and the merge box wants the plan
status and an approval of the current head."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.github.gh_fake import BOT, TOKEN, FakeGitHub, MergeRefused
from tests.github.gh_protected import APP, APP_TOKEN, ProtectedWorld, serving
from tests.github.gh_world import git

IDENTITY = ("-c", "user.name=Test", "-c", "user.email=test@example.com")


@pytest.fixture
def world(tmp_path: Path, fake: FakeGitHub) -> Iterator[ProtectedWorld]:
    root = tmp_path / "world"
    root.mkdir()
    with serving(root / "origin.git", fake.repo) as server:
        yield ProtectedWorld(root, fake, server_url=server.url)


def push_as(world: ProtectedWorld, token: str, message: str, ref: str = "main") -> bool:
    """Commit on main's tip in a job checkout and push it over HTTP with ``token``."""
    job = world.checkout(world.branch_sha("main") or "")
    (job / "generated.txt").write_text(message, encoding="utf-8")
    git(job, "add", "-A")
    git(job, *IDENTITY, "commit", "-q", "-m", message)
    url = world.server_url.replace("http://", f"http://x-access-token:{token}@")
    proc = subprocess.run(
        ["git", "push", "-q", f"{url}/{world.fake.repo}", f"HEAD:refs/heads/{ref}"],
        cwd=job,
        capture_output=True,
        text=True,
        env={"GIT_TERMINAL_PROMPT": "0", "PATH": "/usr/bin:/bin", "HOME": str(job)},
    )
    if proc.returncode:
        assert "GH013" in proc.stderr, proc.stderr  # refused by the ruleset, nothing else
    return proc.returncode == 0


def test_the_origin_refuses_the_bot_on_main_and_takes_the_app(world: ProtectedWorld) -> None:
    before = world.branch_sha("main")
    assert not push_as(world, TOKEN, "bot")
    assert world.branch_sha("main") == before
    assert push_as(world, TOKEN, "bot elsewhere", ref="averos/apply-x")  # other branches: fine
    assert push_as(world, APP_TOKEN, "by the app")
    world.set_bypass(app=False)
    assert not push_as(world, APP_TOKEN, "by the app, no longer let through")
    by = {p.ref: p.by for p in world.pushes()}
    assert by == {"refs/heads/averos/apply-x": BOT, "refs/heads/main": APP}


def test_only_people_and_the_app_start_workflows(world: ProtectedWorld) -> None:
    assert push_as(world, TOKEN, "bot", ref="feature")
    assert push_as(world, APP_TOKEN, "app")
    assert push_as(world, APP_TOKEN, "app again [skip ci]")
    started = [(p.by, world.triggered(p)) for p in world.pushes()]
    assert started == [(BOT, False), (APP, True), (APP, False)]


def test_the_merge_box_wants_the_plan_status_and_an_approval_of_the_head(
    world: ProtectedWorld, fake: FakeGitHub
) -> None:
    old = world.commit("feat1", {"a.txt": "1"}, "one")
    fake.add_pull(1, author="alice", head_sha=old, head_ref="feat1")
    fake.add_review(1, user="bob", state="APPROVED", commit_id=old)
    new = world.commit("feat1", {"a.txt": "2"}, "two")
    fake.push_head(1, new)
    fake.add_status(new, by=BOT, state="success", context="averos-ci/plan")
    with pytest.raises(MergeRefused, match="approving review"):  # dismissed: an older head
        world.merge_pr(1)
    fake.add_review(1, user="alice", state="APPROVED", commit_id=new)  # the author's own
    with pytest.raises(MergeRefused, match="approving review"):
        world.merge_pr(1)
    fake.add_review(1, user="bob", state="APPROVED", commit_id=new)
    fake.add_status(new, by=BOT, state="pending", context="averos-ci/plan")
    with pytest.raises(MergeRefused, match="averos-ci/plan"):
        world.merge_pr(1)
    fake.add_status(new, by=BOT, state="success", context="averos-ci/plan")
    merge = world.merge_pr(1)
    assert world.branch_sha("main") == merge and fake.pulls[1]["merged"]
