"""Planning one project, one floor above ``plan/``, ``state/`` and ``execute/``: every caller
plans through :func:`plan_project` and the apply executes its :class:`Planned` value.

The names are imported on first use (PEP 562): a caller that only plans (the MCP server) never
loads the apply."""

from __future__ import annotations

from typing import TYPE_CHECKING

from averos_ci._lazy import lazy_exports

if TYPE_CHECKING:
    from averos_ci.execute.apply import ApplyOutcome, PlanMismatch, PlanNotApplicable
    from averos_ci.planning.run import apply
    from averos_ci.planning.service import (
        CodePatchMode,
        code_patch_needed,
        plan_project,
        with_code_patch,
    )
    from averos_ci.planning.sources import FileState, LoadedState, RefState, StateSource
    from averos_ci.state.guard import Planned

__all__ = [
    "ApplyOutcome",
    "CodePatchMode",
    "FileState",
    "LoadedState",
    "PlanMismatch",
    "PlanNotApplicable",
    "Planned",
    "RefState",
    "StateSource",
    "apply",
    "code_patch_needed",
    "plan_project",
    "with_code_patch",
]

_HOMES = {
    "ApplyOutcome": "averos_ci.execute.apply",
    "PlanMismatch": "averos_ci.execute.apply",
    "PlanNotApplicable": "averos_ci.execute.apply",
    "apply": "averos_ci.planning.run",
    "CodePatchMode": "averos_ci.planning.service",
    "code_patch_needed": "averos_ci.planning.service",
    "plan_project": "averos_ci.planning.service",
    "with_code_patch": "averos_ci.planning.service",
    "FileState": "averos_ci.planning.sources",
    "LoadedState": "averos_ci.planning.sources",
    "RefState": "averos_ci.planning.sources",
    "StateSource": "averos_ci.planning.sources",
    "Planned": "averos_ci.state.guard",
}

__getattr__, __dir__ = lazy_exports(__name__, _HOMES, globals(), __all__)
