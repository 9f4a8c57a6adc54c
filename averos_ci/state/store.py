"""StateStore: load() -> state | None; save(state). File (atomic) and Memory."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Protocol

from pydantic import ValidationError

from averos_ci._fs import atomic_write_text
from averos_ci._validation import first_problem
from averos_ci.errors import StateError
from averos_ci.plan.canonical import canonical_json
from averos_ci.state.averos_compat import StateShapeError
from averos_ci.state.model import STATE_FORMAT_VERSION, AppliedState, upgrade

STATE_MAX_BYTES = 256 * 1024 * 1024


class StateStore(Protocol):
    def load(self) -> AppliedState | None: ...
    def save(self, state: AppliedState) -> None: ...


class MemoryStateStore:
    def __init__(self, state: AppliedState | None = None) -> None:
        self.state = state

    def load(self) -> AppliedState | None:
        return self.state

    def save(self, state: AppliedState) -> None:
        self.state = state


class FileStateStore:
    """An absent file means an empty application; anything unreadable is a StateError."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)

    def load(self) -> AppliedState | None:
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return None
        except IsADirectoryError:
            raise StateError("state path is a directory", path=self.path) from None
        except OSError as exc:
            raise StateError(f"cannot read state file: {exc.strerror}", path=self.path) from None
        return parse_state(raw, path=self.path)

    def save(self, state: AppliedState) -> None:
        atomic_write_text(self.path, canonical_json(state.to_wire()))


def parse_state(raw: bytes, *, path: Path) -> AppliedState:
    hint = "restore the file from the state branch or version control; never edit it by hand"
    if len(raw) > STATE_MAX_BYTES:
        raise StateError("state file is too large", path=path, hint=hint)
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise StateError("state file is not UTF-8 (corrupt?)", path=path, hint=hint) from None
    except json.JSONDecodeError as exc:
        raise StateError(
            f"state file is corrupt or truncated: {exc.msg}",
            path=path,
            line=exc.lineno,
            column=exc.colno,
            hint=hint,
        ) from None
    if not isinstance(data, dict):
        raise StateError("state file must hold a JSON object", path=path, hint=hint)
    version = data.get("formatVersion", 0)  # 0: Averos's own state.json (no formatVersion)
    if not isinstance(version, int) or isinstance(version, bool):
        raise StateError("state file has no integer formatVersion", path=path, hint=hint)
    if version > STATE_FORMAT_VERSION:
        raise StateError(
            f"state file format version {version} is newer than this averos-ci supports "
            f"({STATE_FORMAT_VERSION})",
            path=path,
            hint="upgrade averos-ci",
        )
    if version < 1 and "formatVersion" in data:
        raise StateError(f"unknown state format version {version}", path=path, hint=hint)
    try:
        upgraded = upgrade(data)
    except StateShapeError as exc:
        raise StateError(
            f"state file has an unknown shape at {exc.pointer or '/'}: {exc.message}",
            path=path,
            hint="averos-ci reads its own state files and Averos's .averos/state.json; "
            "restore the file from the state branch or version control",
        ) from None
    try:
        return AppliedState.model_validate(upgraded)
    except ValidationError as exc:
        problem = first_problem(exc)
        raise StateError(
            f"state file is invalid at {problem.pointer}: {problem.msg}", path=path, hint=hint
        ) from None
