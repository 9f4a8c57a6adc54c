"""Facts about the local repository ``init`` and ``doctor`` work on: its root, its default
branch, its GitHub ``owner/name``; and about the clone averos-ci itself may run from."""

from __future__ import annotations

import subprocess
from pathlib import Path

import averos_ci
from averos_ci.errors import InputError
from averos_ci.onboard.pins import github_slug


def _git(root: Path, *args: str) -> str | None:
    try:
        proc = subprocess.run(
            ["git", "-C", str(root), *args], capture_output=True, text=True, timeout=30
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return proc.stdout.strip() if proc.returncode == 0 else None


def repository_root(start: Path) -> Path:
    top = _git(start, "rev-parse", "--show-toplevel")
    if not top:
        raise InputError(
            f"{start} is not inside a git repository",
            hint="run it in your repository's checkout (git init first for a new one)",
        )
    return Path(top)


def default_branch(root: Path, given: str | None = None) -> str:
    """``given``, else origin's HEAD, else the current branch, else ``main``."""
    if given:
        return given
    head = _git(root, "symbolic-ref", "--quiet", "refs/remotes/origin/HEAD")
    if head and head.startswith("refs/remotes/origin/"):
        return head.removeprefix("refs/remotes/origin/")
    current = _git(root, "symbolic-ref", "--quiet", "--short", "HEAD")
    return current or "main"


def origin_slug(root: Path) -> str | None:
    """``owner/name`` of the ``origin`` remote when it is on github.com."""
    return github_slug(_git(root, "remote", "get-url", "origin"))


def source_clone() -> Path | None:
    """The git clone this averos-ci runs from (``pip install -e <clone>``), if any: the
    package folder sits at the clone's top. A package under ``site-packages`` never counts,
    even inside another repository (a virtualenv in a project's checkout)."""
    top = Path(averos_ci.__file__).resolve().parent.parent
    found = _git(top, "rev-parse", "--show-toplevel")
    return top if found and Path(found).resolve() == top else None


def source_clone_slug() -> str | None:
    """``owner/name`` of that clone's ``origin`` when it is on github.com."""
    clone = source_clone()
    return None if clone is None else origin_slug(clone)
