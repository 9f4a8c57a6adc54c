"""Compatibility shim until :mod:`averos_ci.statebranch.state_rollback` plans through
:func:`averos_ci.planning.plan_project` with a
:class:`~averos_ci.statebranch.project_state.BranchState`; then this module goes."""

from __future__ import annotations

from pathlib import Path

from averos_ci.config import RunConfig
from averos_ci.planning import LoadedState, Planned, plan_project
from averos_ci.state.model import AppliedState


def plan_state(
    *,
    config: RunConfig,
    state: AppliedState | None,
    state_path: str,
    manifest_path: Path | None = None,
    fatal: bool = True,
) -> Planned:
    """The semantic plan of ``manifest_path`` on ``state`` (read from ``state_path``)."""
    return plan_project(
        config,
        LoadedState(state, state_path),
        code_patch="off",
        manifest_path=manifest_path,
        fatal=fatal,
    )
