"""The default branch's history as a catch-up reads it (:mod:`averos_ci.github.catchup`):
which commits are steps, where the state was last applied from, files at a commit."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import git

from averos_ci.state.model import AppliedState
from averos_ci.statebranch.claim import RUNS

MAX_STEPS = 100  # first-parent commits looked at; older ones are out of reach of a catch-up


def first_parent_steps(repo: git.Repo, *, since: str | None, head: str, rel: str) -> list[str]:
    """The first-parent commits after ``since`` up to ``head`` (oldest first, at most
    :data:`MAX_STEPS`) whose ``rel`` differs from their first parent's, and ``head``.

    Commits that leave the manifest alone (the generated app committed back, other merges)
    are no steps: their plan is their predecessor's."""
    span = f"{since}..{head}" if since else head
    revs = repo.git.rev_list("--first-parent", f"--max-count={MAX_STEPS}", span).split()
    revs.reverse()
    changed = [r for r in revs if _blob(repo, r, rel) != _blob(repo, f"{r}^1", rel)]
    if not changed or changed[-1] != head:
        changed.append(head)
    return changed


def pending_steps(
    repo: git.Repo,
    peek: Path,
    state: AppliedState | None,
    *,
    head: str,
    rel: str,
    step_at: Any,
) -> tuple[list[str], bool]:
    """First-parent commits after the last applied one, up to ``head`` (oldest first), that
    change the manifest — and ``head``; whether they start at a known applied commit. Empty:
    the state already holds a later commit."""
    since = last_applied(peek)
    if since is not None and state is not None:
        if since == head or is_ancestor(repo, head, since):
            if since != head:
                print(f"the state was applied from {since[:12]}, after {head[:12]}")
            return ([] if since != head else [head]), True
        if not is_ancestor(repo, since, head):
            shallow = str(repo.git.rev_parse("--is-shallow-repository")).strip() == "true"
            print(
                f"the last applied commit {since[:12]} is not in this history: head only"
                + ("; check out with fetch-depth: 0 to catch up" if shallow else "")
            )
            return [head], False
        if step_at(since).plan.manifest_hash != state.manifest_hash:
            print(f"the state no longer holds the manifest of {since[:12]}: head only")
            return [head], False
    elif state is not None:
        return [head], False  # no record of where the state came from (adopted, older)
    else:
        since = None  # never applied: any approved step from the empty state
    try:
        return first_parent_steps(repo, since=since, head=head, rel=rel), since is not None
    except git.GitCommandError:
        return [head], False  # a shallow checkout: see the README (fetch-depth: 0)


def last_applied(proj: Path) -> str | None:
    """The commit of the newest run record (``<project>/runs/*.json``), if any."""
    runs = sorted((proj / RUNS).glob("*.json")) if (proj / RUNS).is_dir() else []
    for path in reversed(runs):
        try:
            sha = json.loads(path.read_text(encoding="utf-8")).get("sha")
        except (ValueError, OSError, AttributeError):
            continue
        if isinstance(sha, str) and len(sha) == 40:
            return sha
    return None


def read_at(repo: git.Repo, rev: str, rel: str) -> bytes | None:
    try:
        blob = repo.commit(rev).tree / rel
    except (KeyError, ValueError, git.BadName):
        return None
    if not isinstance(blob, git.Blob):
        return None
    data: bytes = blob.data_stream.read()
    return data


def _blob(repo: git.Repo, rev: str, rel: str) -> str | None:
    if "\n" in rel or "\r" in rel:  # would break the line protocol below
        try:
            return str(repo.git.rev_parse("--verify", "--quiet", f"{rev}:{rel}")).strip() or None
        except git.GitCommandError:
            return None
    # asked of gitpython's long-lived ``cat-file --batch-check``: a rev-parse per commit and
    # parent launched up to 200 git processes per catch-up
    try:
        return repo.git.get_object_header(f"{rev}:{rel}")[0]
    except ValueError:  # "missing": no such commit (a root's parent) or no such file
        return None


def is_ancestor(repo: git.Repo, older: str, newer: str) -> bool:
    try:
        repo.git.merge_base("--is-ancestor", older, newer)
    except git.GitCommandError:
        return False
    return True
