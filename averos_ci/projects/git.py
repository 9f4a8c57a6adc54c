"""The git plumbing discovery and change detection need, through gitpython.

Errors from git become located input errors with a hint here, at the boundary.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from averos_ci.errors import InputError


def _repo(root: Path) -> Any:
    import git

    try:
        return git.Repo(root)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        raise InputError(
            "not a git repository", path=root, hint="run in a clone, or pass --root"
        ) from None


def tracked_and_untracked(root: Path, pathspec: str) -> list[str]:
    """Files matching ``pathspec`` that git tracks or would add: ignored files left out."""
    out = _git(root, "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", pathspec)
    return sorted({p for p in out.split("\0") if p})


def changed_files(root: Path, *, base: str, head: str) -> set[str]:
    """Paths changed from the merge base of ``base`` and ``head`` to ``head`` (what a pull
    request from ``head`` into ``base`` changes). A rename counts for both of its paths."""
    # Exit 1 with no output is git's "no merge base": unrelated histories, or a shallow clone.
    bases = _git(root, "merge-base", "--all", base, head, no_output_ok=True).split()
    if not bases:
        raise InputError(
            f"{base!r} and {head!r} have no common ancestor here",
            path=root,
            hint="fetch the whole history (actions/checkout with 'fetch-depth: 0'), and pass "
            "the pull request's base and head commits",
        )
    out = _git(root, "diff", "--name-only", "--no-renames", "-z", bases[0], head, "--")
    return {p for p in out.split("\0") if p}


def _git(root: Path, *args: str, no_output_ok: bool = False) -> str:
    import git

    repo = _repo(root)
    try:
        return str(repo.git.execute(["git", *args], strip_newline_in_stdout=False))
    except git.GitCommandError as exc:
        if no_output_ok and exc.status == 1 and not str(exc.stderr or "").strip(" '\n"):
            return ""
        stderr = str(exc.stderr or "").strip().removeprefix("stderr: ").strip(" '\n")
        raise InputError(
            f"git {args[0]} failed (exit {exc.status}): {stderr or 'no message'}",
            path=root,
            hint="check --base/--head; in Actions check out with 'fetch-depth: 0' so both "
            "commits and their merge base are present",
        ) from None
