"""Keeping the generated application on a branch after an apply, and recording in the state
where it now lives: the git half of ``commitWorkspace`` (the flow that chooses the branch and
opens a pull request when it is protected is :mod:`averos_ci.github.commit_back`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from averos_ci._fs import atomic_write_text
from averos_ci.plan.canonical import canonical_json
from averos_ci.state.model import PullRequestLocation
from averos_ci.state.store import parse_state
from averos_ci.statebranch.landing import Backoff, tries
from averos_ci.statebranch.state_branch import StateBranch


@dataclass(frozen=True)
class Kept:
    note: str  # for the result comment
    commit: str | None = None  # the commit of the default branch holding the app
    pull_request: PullRequestLocation | None = None
    recorded: bool = True  # False: the location is unknown (none / another branch)


def commit_message(plan_hash: str, sha: str) -> str:
    """``plan_hash``: the approved one (the full planHash, code change included)."""
    return f"averos-ci: generated workspace for plan {plan_hash[:12]} ({sha[:12]}) [skip ci]"


def push_files(
    target: StateBranch,
    *,
    sha: str,
    changes: dict[str, Path | None],
    plan_hash: str,
    backoff: Backoff,
) -> str | None:
    """Commit on the branch tip and push (no force); the commit, or None after the retries."""
    for _ in tries(backoff):  # parallel projects' jobs push too
        parent = target.fetch() or sha
        message = commit_message(plan_hash, sha)
        commit = target.commit_paths(parent=parent, changes=changes, message=message)
        if target.push(commit):
            return commit
    return None


def land_on_branch(target: StateBranch, commit: str) -> str | None:
    """Push ``commit`` to ``target``'s branch, or find it there already; the commit the
    branch now holds, or ``None`` when the branch holds anything else.

    A branch already there is reused only when its tip is this commit or the same commit
    made by another attempt of the job (the same parents and the same tree): a branch that
    anyone with write access pushed first, e.g. with a file on top, is never taken for ours.
    """
    tip = target.fetch()
    if tip is None:
        if target.push(commit):
            return commit
        tip = target.fetch()  # pushed by a parallel attempt meanwhile
    return tip if tip is not None and _same_change(target, tip, commit) else None


def _same_change(target: StateBranch, tip: str, commit: str) -> bool:
    a, b = target.repo.commit(tip), target.repo.commit(commit)
    same_parents = [p.hexsha for p in a.parents] == [p.hexsha for p in b.parents]
    return same_parents and a.tree.hexsha == b.tree.hexsha


def record_location(state_file: Path, kept: Kept) -> None:
    """Write where the application lives into the state the apply just saved."""
    if not state_file.is_file():
        return
    state = parse_state(state_file.read_bytes(), path=state_file)
    if state.workspace is None:
        return
    workspace = state.workspace.model_copy(
        update={
            "commit": kept.commit if kept.recorded else None,
            "pull_request": kept.pull_request,
        }
    )
    if kept.pull_request is not None:  # the app is still at the previous commit, if any
        workspace = workspace.model_copy(update={"commit": state.workspace.commit})
    updated = state.model_copy(update={"workspace": workspace})
    atomic_write_text(state_file, canonical_json(updated.to_wire()))
