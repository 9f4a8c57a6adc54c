"""What the attackers of the security tests do, with nothing but git and the public API."""

from __future__ import annotations

import subprocess
from collections.abc import Mapping
from pathlib import Path

from tests.github.gh_world import STATE_BRANCH, World, git


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


__all__ = ["Path", "plant_on_state_branch", "show", "tree"]
