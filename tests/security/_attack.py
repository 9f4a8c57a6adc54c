"""What the attackers of the security tests do, with nothing but git and the public API."""

from __future__ import annotations

import subprocess
from collections.abc import Mapping
from pathlib import Path

from tests.github.gh_fake import FakeGitHub
from tests.github.gh_world import STATE_BRANCH, World, git, manifest_variant


def approved_merge(world: World, fake: FakeGitHub, *, extra: int = 1) -> tuple[str, str]:
    """PR #1 (alice) adding ``extra`` translation entries, approved by bob and merged:
    (the approved planHash, the merge commit)."""
    head = world.commit("feat1", {"todoapp.manifest.yaml": manifest_variant(extra)}, "entries")
    fake.add_pull(1, author="alice", head_sha=head, head_ref="feat1")
    r = world.run("pull_request", world.pr_event("opened", 1), head)
    assert r.code == 0, r.stderr
    approved = r.outputs["plan-hash"]
    ok = fake.add_comment(1, user="bob", body=world.approve_command(1))
    r = world.run("issue_comment", world.comment_event(1, ok), head)
    assert r.outputs["approved"] == "true", r.stdout + r.stderr
    merge = world.merge("feat1")
    fake.merge(1, merge)
    return approved, merge


def plant_on_state_branch(world: World, files: Mapping[str, str], *, name: str = "mallory") -> str:
    """Push ``files`` to the state branch of origin as a user with plain write access would
    (a new commit on top of the branch, or an orphan branch if it does not exist yet)."""
    work = world.root / f"{name}-state"
    if not work.exists():
        git(world.root, "clone", "-q", str(world.origin), str(work))
    git(work, "fetch", "-q", "origin")
    try:
        git(work, "rev-parse", "--verify", "--quiet", f"origin/{STATE_BRANCH}")
        git(work, "checkout", "-q", "-B", STATE_BRANCH, f"origin/{STATE_BRANCH}")
    except subprocess.CalledProcessError:
        git(work, "checkout", "-q", "--orphan", STATE_BRANCH)
        git(work, "rm", "-rfq", "--ignore-unmatch", "--", ".")
    for rel, text in files.items():
        path = work / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    git(work, "add", "-A")
    git(
        work,
        "-c",
        "user.name=Mallory",
        "-c",
        "user.email=mallory@example.com",
        "commit",
        "-q",
        "-m",
        "planted",
    )
    git(work, "push", "-q", "origin", f"{STATE_BRANCH}:{STATE_BRANCH}")
    return git(work, "rev-parse", "HEAD")


def show(world: World, rev: str, path: str) -> str | None:
    try:
        return git(world.origin, "show", f"{rev}:{path}")
    except subprocess.CalledProcessError:
        return None


def tree(world: World, rev: str) -> list[str]:
    return git(world.origin, "ls-tree", "-r", "--name-only", rev).splitlines()


__all__ = ["Path", "approved_merge", "plant_on_state_branch", "show", "tree"]
