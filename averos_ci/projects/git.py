"""The git plumbing discovery and change detection need: three read-only commands, run as
``git`` subprocesses (gitpython costs 70 ms of import for them; a fresh `projects` process
pays it on every call).

Errors from git become located input errors with a hint here, at the boundary.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from averos_ci.errors import InputError


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
    if not (root / ".git").exists():
        raise InputError("not a git repository", path=root, hint="run in a clone, or pass --root")
    try:
        proc = subprocess.run(
            ["git", *args],
            cwd=root,
            capture_output=True,
            encoding="utf-8",
            errors="surrogateescape",  # a path git prints is bytes; kept as gitpython kept them
            env={**os.environ, "LANGUAGE": "C", "LC_ALL": "C"},  # git's messages in English
            check=False,
        )
    except OSError as exc:
        raise InputError(
            f"cannot run git: {exc.strerror}", path=root, hint="install git and put it on PATH"
        ) from None
    if proc.returncode == 0:
        return proc.stdout
    stderr = proc.stderr.strip(" '\n")
    if no_output_ok and proc.returncode == 1 and not stderr:
        return ""
    raise InputError(
        f"git {args[0]} failed (exit {proc.returncode}): {stderr or 'no message'}",
        path=root,
        hint="check --base/--head; in Actions check out with 'fetch-depth: 0' so both "
        "commits and their merge base are present",
    )
