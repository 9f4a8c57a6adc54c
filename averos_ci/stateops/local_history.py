"""A local project's applied states, newest first: the state file as it is on disk, then each
version of it that git holds (``git log`` of the committed ``statePath``).

A local project commits its state with the application (docs/how-to/what-to-commit.md), so
git already keeps every applied state, shared by every clone, as Copier reads a project's
history from git: no second store to commit or to ignore. A state applied and replaced
before it was committed is not in the history; ``show`` says when serials are missing.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from averos_ci.config import RunConfig
from averos_ci.errors import StateError
from averos_ci.plan.items import plain
from averos_ci.state.model import AppliedState
from averos_ci.state.store import FileStateStore, parse_state

__all__ = [
    "LocalHistory",
    "StateVersion",
    "git_output",
    "previous",
    "read_history",
    "relative_to_repo",
    "same_state",
    "toplevel",
]

HISTORY_FORMAT_VERSION = 1
MAX_VERSIONS = 50  # versions read from git, newest first


@dataclass(frozen=True)
class StateVersion:
    state: AppliedState
    commit: str | None  # None: the file on disk, not committed as it is
    committed_at: str = ""
    subject: str = ""

    @property
    def label(self) -> str:
        return "not committed" if self.commit is None else f"commit {self.commit[:12]}"

    def to_json(self) -> dict[str, Any]:
        s = self.state
        return {
            "serial": s.serial,
            "lineage": s.lineage,
            "manifestHash": s.manifest_hash,
            "builtAt": s.built_at,
            "nodes": len(s.node_states),
            "commit": self.commit,
            "committedAt": self.committed_at or None,
            "subject": self.subject or None,
        }


@dataclass(frozen=True)
class LocalHistory:
    state_path: Path
    shown: str  # the state file as the user names it (repository-relative when it can)
    versions: tuple[StateVersion, ...]  # newest first; [0] is the state on disk, if any
    on_disk: bool  # a state file exists
    notes: tuple[str, ...] = ()

    @property
    def current(self) -> StateVersion | None:
        return self.versions[0] if self.on_disk and self.versions else None

    def to_json(self) -> dict[str, Any]:
        return {
            "formatVersion": HISTORY_FORMAT_VERSION,
            "local": True,
            "statePath": self.shown,
            "current": None if self.current is None else self.current.to_json(),
            "versions": [v.to_json() for v in self.versions],
            "notes": list(self.notes),
        }

    def render_text(self) -> str:
        lines = [f"local project: {self.shown} and its history in git"]
        if self.current is None:
            lines.append("state: nothing applied yet (no state file)")
        for i, v in enumerate(self.versions):
            s = v.state
            mark = "*" if i == 0 and self.current is not None else " "
            when = f" {v.committed_at}" if v.committed_at else ""
            what = f" {v.subject}" if v.subject else ""
            lines.append(
                f"{mark} serial {s.serial}: manifest {s.manifest_hash[:12]}, "
                f"{len(s.node_states)} node(s), built {s.built_at}; {v.label}{when}{what}"
            )
        lines += [f"note: {n}" for n in self.notes]
        earlier = previous(self)
        if earlier is not None:
            lines.append(
                f"hint: `averos-ci state rollback` undoes the last apply (back to serial "
                f"{earlier.state.serial}); `--to COMMIT|SERIAL` picks another"
            )
        # commit subjects are anyone's text: none may drive the terminal
        return "\n".join(plain(line) for line in lines) + "\n"


def previous(history: LocalHistory) -> StateVersion | None:
    """The applied state before the current one: the newest other version of another
    manifest."""
    current = history.current
    if current is None:
        return None
    return next((v for v in history.versions[1:] if not same_state(v.state, current.state)), None)


def same_state(a: AppliedState, b: AppliedState) -> bool:
    """The same manifest applied: rolling back from one to the other would change nothing."""
    return a.manifest_hash == b.manifest_hash


def read_history(config: RunConfig, *, limit: int = MAX_VERSIONS) -> LocalHistory:
    path = config.state_path
    state = FileStateStore(path).load()  # a corrupt state file is an error (exit 2)
    root = toplevel(config.base_dir)
    rel = relative_to_repo(path, root)
    notes: list[str] = []
    found: list[tuple[StateVersion, bytes]] = []
    if root is None or rel is None:
        notes.append(f"{path} is not in a git repository: no history (only the state on disk)")
    else:
        found = _committed(root, rel, limit, notes)
    versions = [v for v, _ in found]
    if state is not None:
        raw = path.read_bytes()
        if not found or found[0][1] != raw:
            versions.insert(0, StateVersion(state, None))
            if root is not None and rel is not None and not found:
                notes.append(
                    "the state is not committed yet: commit it with the application after "
                    "each run (git add -A && git commit); each commit is a state to go back to"
                )
            last = found[0][0].state.serial if found else state.serial - 1
            if state.serial > last + 2:
                notes.append(
                    f"serials {last + 1} to {state.serial - 1} were applied and replaced "
                    "before being committed: they are not in the history"
                )
            elif state.serial == last + 2:
                notes.append(
                    f"serial {last + 1} was applied and replaced before being committed: it is "
                    "not in the history"
                )
    return LocalHistory(
        state_path=path,
        shown=rel or str(path),
        versions=tuple(versions),
        on_disk=state is not None,
        notes=tuple(notes),
    )


def _committed(
    root: Path, rel: str, limit: int, notes: list[str]
) -> list[tuple[StateVersion, bytes]]:
    log = git_output(root, "log", f"-n{limit}", "--format=%H%x1f%cI%x1f%s", "--", rel)
    out: list[tuple[StateVersion, bytes]] = []
    for line in (log or b"").decode("utf-8", "replace").splitlines():
        commit, at, subject = line.split("\x1f", 2)
        raw = git_output(root, "show", f"{commit}:{rel}")
        if raw is None:  # the commit deleted the file
            continue
        try:
            state = parse_state(raw, path=Path(f"{commit[:12]}:{rel}"))
        except StateError as exc:
            notes.append(f"{exc.location or rel}: {exc.message}: left out of the history")
            continue
        out.append((StateVersion(state, commit, at, subject), raw))
    return out


def git_output(root: Path, *args: str) -> bytes | None:
    try:
        proc = subprocess.run(
            ["git", "-C", str(root), *args], capture_output=True, timeout=60, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return proc.stdout if proc.returncode == 0 else None


def toplevel(start: Path) -> Path | None:
    out = git_output(start, "rev-parse", "--show-toplevel")
    return Path(out.decode().strip()).resolve() if out else None


def relative_to_repo(path: Path, root: Path | None) -> str | None:
    if root is None:
        return None
    try:
        return path.resolve().relative_to(root).as_posix()
    except ValueError:
        return None
