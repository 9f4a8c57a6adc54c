"""Operating the state branch from a local clone (``averos-ci state show|abandon|rollback``).

Each writing operation is one commit on the state branch, authored by the person it is done for
(``GITHUB_ACTOR`` or git's ``user.name``) with ``--reason`` in the message, and adds a record
``<project>/runs/<time>-<action>.json`` saying who, why and what was replaced. Pushes are
never forced: when the branch moved, the operation is decided again on the new tip.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from averos_ci.config import RunConfig
from averos_ci.errors import InputError
from averos_ci.state.model import now_iso
from averos_ci.statebranch.claim import (
    CHECKPOINTS,
    CLAIM,
    PARTIAL,
    RUNS,
    SEAL,
    SEALED_CHECKPOINTS,
    write_json,
)
from averos_ci.statebranch.errors import ApplyRefused
from averos_ci.statebranch.state_branch import GitError, StateBranch
from averos_ci.stateops.show import StateView, blobs, read_view

__all__ = [
    "NothingToDo",
    "OpResult",
    "StateBusy",
    "StateTarget",
    "abandon_apply",
    "show_state",
]


class NothingToDo(InputError):
    """The operation does not apply to the state as it is (exit 2); nothing was written."""


class StateBusy(ApplyRefused):
    """An apply holds the project (its claim is on the state branch): refused (exit 1)."""


@dataclass(frozen=True)
class StateTarget:
    sb: StateBranch
    project: str
    config: RunConfig
    push_attempts: int  # tries of a rejected push (``github.pushAttempts``)
    repo_root: Path

    def view(self) -> StateView:
        return read_view(self.sb, self.sb.fetch(), self.project)


@dataclass(frozen=True)
class OpResult:
    commit: str
    record: str  # the record's path on the state branch
    message: str


def show_state(target: StateTarget) -> StateView:
    """What is applied and what an unfinished apply left (``averos-ci state show``)."""
    return target.view()


def actor(target: StateTarget, environ: Mapping[str, str] | None = None) -> tuple[str, str]:
    """(name, email) of whoever runs the command: ``GITHUB_ACTOR`` under Actions, else git's
    author identity (``GIT_AUTHOR_NAME`` / ``user.name``; never one git would guess)."""
    env = os.environ if environ is None else environ
    login = env.get("GITHUB_ACTOR", "").strip()
    if login:
        return login, f"{login}@users.noreply.github.com"
    name, email = env.get("GIT_AUTHOR_NAME", ""), env.get("GIT_AUTHOR_EMAIL", "")
    for key, value in (("user.name", name), ("user.email", email)):
        if not value:
            try:
                value = str(target.sb.repo.git.config("--get", key)).strip()
            except Exception:  # unset: GitCommandError
                continue
            name, email = (value, email) if key == "user.name" else (name, value)
    if not name:
        raise InputError(
            "cannot tell who is doing this: neither GITHUB_ACTOR nor git's user.name is set",
            hint="set your name: git config user.name 'Your Name' (and user.email), then run again",
        )
    return name, email or f"{name}@localhost"


def check_reason(reason: str) -> str:
    text = " ".join(reason.split())
    if not text:
        raise InputError("--reason is empty", hint="say why, e.g. --reason 'runner died'")
    return text


Decide = Callable[[StateView], tuple[dict[str, Path | None], dict[str, Any], str]]


def write_op(target: StateTarget, *, action: str, reason: str, decide: Decide) -> OpResult:
    """Fetch, let ``decide`` (which may refuse) name the changes, the record and the subject,
    commit them with the record and push; decided again on the new tip when the push is
    rejected (someone else wrote meanwhile)."""
    reason = check_reason(reason)
    name, email = actor(target)
    sb, project = target.sb, target.project
    with tempfile.TemporaryDirectory(prefix="averos-ci-state-op-") as tmp:
        for _ in range(target.push_attempts):
            tip = sb.fetch()
            view = read_view(sb, tip, project)
            changes, record, subject = decide(view)
            if tip is None:
                raise NothingToDo(f"{sb.branch!r} does not exist on {sb.remote!r}")
            at = now_iso()
            rel = f"{project}/{RUNS}/{at.replace(':', '')}-{action}.json"
            file = Path(tmp) / f"{len(os.listdir(tmp))}.json"
            write_json(
                file,
                {"action": action, "actor": name, "reason": reason, "at": at, **record},
            )
            message = f"averos-ci: {project}: {subject}\n\n{reason}\n\nBy: {name} <{email}>"
            commit = sb.commit_paths(
                parent=tip, changes={**changes, rel: file}, message=message, author=(name, email)
            )
            if sb.push(commit):
                return OpResult(
                    commit,
                    rel,
                    f"{subject}: commit {commit[:12]} pushed to {sb.branch!r} (record {rel})",
                )
    raise GitError(
        f"{sb.branch!r} kept moving; gave up after {target.push_attempts} attempts",
        hint="run the command again",
    )


def abandon_apply(target: StateTarget, *, reason: str) -> OpResult:
    """Drop the claim, checkpoints and partial workspace of an interrupted apply. The next
    apply starts that plan from scratch; an apply still running stops at its next push."""
    sb, project = target.sb, target.project

    def decide(view: StateView) -> tuple[dict[str, Path | None], dict[str, Any], str]:
        pending = view.pending
        if pending is None or not pending.present:
            raise NothingToDo(
                f"nothing to abandon: no claim, checkpoints or partial workspace for project "
                f"{project!r} on {sb.branch!r}",
                hint="`averos-ci state show` shows the state; the next apply is not blocked",
            )
        gone: dict[str, Path | None] = {f"{project}/{CLAIM}": None}
        for leftover in (CHECKPOINTS, SEAL, SEALED_CHECKPOINTS):  # the seal goes with them
            gone[f"{project}/{leftover}"] = None
        for path, _ in blobs(sb, view.tip, f"{project}/{PARTIAL}"):
            gone[path] = None
        claim = pending.claim or {}
        return (
            gone,
            {"abandoned": pending.to_json()},
            f"abandon apply of {str(claim.get('planHash') or 'unknown')[:12]}",
        )

    return write_op(target, action="abandon", reason=reason, decide=decide)
