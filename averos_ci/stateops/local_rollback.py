"""``averos-ci state rollback`` on a local project: undo the last apply (or go back to an
earlier applied state) as an apply of the manifest that state applied.

The target comes from the local history (:mod:`.local_history`). The rollback is an ordinary
apply on the current state: the target's manifest is generated anew and merged three-way
into the workspace, so your edits are kept (a collision refuses with exit 5, as ``run``
does), and the new state gets the next serial. The manifest file goes back to the text
committed with the target state when it still holds what was applied (never over an edit).
"""

from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass
from pathlib import Path

from averos_ci._fs import atomic_write_text
from averos_ci.config import RunConfig
from averos_ci.errors import InputError, Interrupted, RunFailed
from averos_ci.plan.model import ExecutionPlan
from averos_ci.plan.render import render_text
from averos_ci.stateops.local_history import (
    LocalHistory,
    StateVersion,
    git_output,
    previous,
    read_history,
    relative_to_repo,
    same_state,
    toplevel,
)
from averos_ci.stateops.operation import NothingToDo

__all__ = ["LocalRollback", "rollback_local"]


@dataclass(frozen=True)
class LocalRollback:
    shown: str  # the state file
    current: StateVersion
    target: StateVersion
    plan: ExecutionPlan | None  # the dry run's plan (the apply plans again, as `run` does)
    manifest_note: str
    done: bool = False

    def render_text(self) -> str:
        cur, to = self.current.state, self.target.state
        lines = [
            f"Rollback of {self.shown} to serial {to.serial} ({self.target.label}, manifest "
            f"{to.manifest_hash[:12]}), from serial {cur.serial} (manifest "
            f"{cur.manifest_hash[:12]}):",
            "",
        ]
        if self.plan is not None:
            lines += [
                "The rollback applies serial "
                f"{to.serial}'s manifest on the current state: this plan, generated anew and "
                "merged into the workspace (your edits are kept):",
                "",
                render_text(self.plan).rstrip("\n"),
                "",
                self.manifest_note,
                "",
                "Dry run: nothing was written. Run again with --yes to roll back.",
            ]
        else:
            lines += [
                f"Rolled back: the application of serial {to.serial} is in the workspace "
                f"(your edits kept), recorded as serial {cur.serial + 1}.",
                self.manifest_note,
                "Commit the state, the pristine tree and the application with the manifest "
                "(docs/how-to/what-to-commit.md).",
            ]
        return "\n".join(lines) + "\n"


def rollback_local(
    config: RunConfig,
    *,
    to: str | None = None,
    yes: bool = False,
    merge_conflicts: str = "refuse",
    verbose: bool = False,
) -> LocalRollback:
    """Plan (and with ``yes`` apply) the return to the state ``to`` names (a commit of the
    state file, 7+ hex digits, or a serial); ``None``: the state before the current one."""
    from averos_ci.config_check import check_config
    from averos_ci.planning import apply, plan_project
    from averos_ci.planning.sources import FileState

    history = read_history(config)
    current = history.current
    if current is None:
        raise NothingToDo(
            f"nothing is applied: no state at {history.shown}",
            hint="`averos-ci run` applies the manifest; `averos-ci state show` lists the states",
        )
    target = _target(history, current, to)
    check_config(config)
    committed = _committed_manifest(config, target)
    restorable = committed is not None and _applies(config.manifest_path, current)
    note = _manifest_note(config, target, committed=committed, restorable=restorable, yes=yes)
    with tempfile.TemporaryDirectory(prefix="averos-ci-rollback-") as tmp:
        manifest = Path(tmp) / (config.manifest_path.name if committed else "manifest.json")
        text = committed or json.dumps(target.state.manifest, indent=2) + "\n"
        manifest.write_text(text, encoding="utf-8")
        rolled = config.with_overrides(manifest_path=manifest)
        if not yes:
            planned = plan_project(rolled, FileState(config.state_path), fatal=True)
            return LocalRollback(history.shown, current, target, planned.planned.plan, note)
        outcome = apply(rolled, merge_conflicts=merge_conflicts, verbose=verbose)
    s = outcome.summary
    if outcome.interrupted:
        raise Interrupted(
            f"rollback interrupted: {outcome.interrupted}; {s.succeeded}/{s.total} nodes done",
            path=config.checkpoint_path,
            hint="run the same rollback again (a clean generation resumes where it stopped)",
        )
    if not s.success:
        raise RunFailed(
            f"rollback failed: {s.failed} failed, {s.skipped} skipped of {s.total}",
            hint=f"see the logs in {config.logs_dir}; `averos-ci state show` shows the state",
        )
    if restorable and committed is not None:
        atomic_write_text(config.manifest_path, committed)
    return LocalRollback(history.shown, current, target, None, note, done=True)


def _target(history: LocalHistory, current: StateVersion, to: str | None) -> StateVersion:
    if to is None:
        found = previous(history)
        if found is None:
            raise NothingToDo(
                f"no earlier applied state in git's history of {history.shown}",
                hint="commit the state with the application after each run (git add -A && "
                "git commit): each commit is a state to go back to",
            )
        return found
    wanted = to.strip().lower()
    versions = [v for v in history.versions[1:] if v.commit is not None]
    if wanted.isdigit() and len(wanted) < 7:
        matches = [v for v in versions if v.state.serial == int(wanted)]
    elif len(wanted) >= 7 and all(c in "0123456789abcdef" for c in wanted):
        matches = [v for v in versions if str(v.commit).startswith(wanted)]
    else:
        raise InputError(
            f"--to {to!r} is neither a commit (7+ hex digits) nor a serial",
            hint="pick one from `averos-ci state show`",
        )
    if not matches:
        known = ", ".join(f"serial {v.state.serial} ({v.label})" for v in versions[:5])
        raise NothingToDo(
            f"--to {to!r} names no committed state in the history of {history.shown}",
            hint=f"pick one of: {known}" if known else "no earlier state is committed",
        )
    found = matches[0]  # newest first
    if same_state(found.state, current.state):
        raise NothingToDo(
            f"the state is already what serial {found.state.serial} applied: nothing to roll back",
            hint="pick an earlier state from `averos-ci state show`",
        )
    return found


def _committed_manifest(config: RunConfig, target: StateVersion) -> str | None:
    """The manifest file as committed with the target state, if it is what that state
    applied (the same normalized manifest)."""
    root = toplevel(config.base_dir)
    rel = relative_to_repo(config.manifest_path, root)
    if root is None or rel is None or target.commit is None:
        return None
    raw = git_output(root, "show", f"{target.commit}:{rel}")
    if raw is None:
        return None
    text = raw.decode("utf-8", "replace")
    with tempfile.TemporaryDirectory(prefix="averos-ci-rollback-") as tmp:
        path = Path(tmp) / config.manifest_path.name
        path.write_text(text, encoding="utf-8")
        return text if _applies(path, target) else None


def _applies(path: Path, version: StateVersion) -> bool:
    """``path`` holds the manifest ``version`` applied. For the manifest file and the current
    state: nothing of the user's is lost when the rollback writes the target's text there."""
    from averos_ci.manifest.validate import load_manifest

    try:
        manifest, _ = load_manifest(path)
    except (InputError, OSError):
        return False
    return manifest == version.state.manifest


def _manifest_note(
    config: RunConfig, target: StateVersion, *, committed: str | None, restorable: bool, yes: bool
) -> str:
    name = config.manifest_path.name
    if restorable:
        verb = "is back to" if yes else "goes back to"
        return f"The manifest file {name} {verb} its text of {target.label}."
    if committed is None:
        why = f"{target.label} holds no {name} that applied serial {target.state.serial}"
    else:
        why = f"{name} was edited since the last apply"
    keep = (
        f"`git show {target.commit[:12]}:<its path> > {name}`"
        if committed is not None and target.commit is not None
        else f"the manifest that applied serial {target.state.serial}"
    )
    return (
        f"The manifest file {name} is not changed ({why}): the next `averos-ci plan` proposes "
        f"its difference with the rolled-back application. To keep the rollback, give {name} "
        f"the rolled-back text ({keep}), then make your edit again."
    )
