"""One project's applied state on the state branch, as a base to plan on: the state-branch
source of the planning service (:class:`averos_ci.planning.StateSource`)."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cached_property
from pathlib import Path

from averos_ci.state.model import AppliedState
from averos_ci.state.store import parse_state
from averos_ci.statebranch.state_branch import StateBranch


class BranchState:
    """``<project>/state.json`` of ``sb`` at ``tip`` (``None``: the branch does not exist yet).
    Read once; the code patch exports the project's folder (its pristine store) and only reads
    it."""

    guarded = True
    read_only = True

    def __init__(self, sb: StateBranch, tip: str | None, project: str) -> None:
        self.sb, self.tip, self.project = sb, tip, project

    @property
    def where(self) -> str:
        return f"{self.sb.branch}:{self.project}/state.json"

    @cached_property
    def state(self) -> AppliedState | None:
        raw = self.sb.read(self.tip, f"{self.project}/state.json")
        return None if raw is None else parse_state(raw, path=Path(self.where))

    def load(self) -> AppliedState | None:
        return self.state

    @contextmanager
    def state_file(self) -> Iterator[Path | None]:
        with tempfile.TemporaryDirectory(prefix="averos-ci-state-") as tmp:
            folder = Path(tmp) / "state" / self.project
            self.sb.export(self.tip, self.project, folder)
            yield folder / "state.json"
