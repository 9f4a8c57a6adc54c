"""Planning a manifest against a state read from the state branch: the one place that does it.

The CI flows reach it through :meth:`averos_ci.forge.context.FlowContext.plan_state`; the
operator's rollback calls it directly. Both plan with the config's adapter, workspace and
execution identity, so that a plan shown, approved and applied is the same plan.
"""

from __future__ import annotations

from pathlib import Path

from averos_ci.config import RunConfig
from averos_ci.plan.identity import execution_identity
from averos_ci.state.guard import Base, plan_on_base
from averos_ci.state.model import AppliedState


def plan_state(
    *,
    config: RunConfig,
    state: AppliedState | None,
    state_path: str,
    manifest_path: Path | None = None,
    fatal: bool = True,
) -> Base:
    """Check the adapter and the workspace against ``state`` (read from ``state_path``), then
    plan ``manifest_path`` (default: the config's manifest). ``fatal``: a workspace that lacks
    the application raises (executing paths); plan-only paths report it instead."""
    return plan_on_base(
        manifest_path=manifest_path or config.manifest_path,
        state=state,
        state_path=state_path,
        adapter=config.adapter,
        workspace_root=config.workspace_root,
        fatal=fatal,
        execution=execution_identity(config),
    )
