"""What a run says about its base before it starts, and what it records about the workspace
after it succeeded (the fingerprint of :mod:`averos_ci.state.fingerprint`)."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path

from averos_ci.execute.contracts import CheckpointStatus, ExecutionCheckpoint
from averos_ci.plan.planner import PlanResult
from averos_ci.state.drift import render_drift
from averos_ci.state.fingerprint import build_fingerprint
from averos_ci.state.guard import Base
from averos_ci.state.model import WorkspaceRecord

MOCK_ADAPTER = "mock"
MOCK_NOTICE = (
    'mock adapter: nothing is generated (adapter "mock" only simulates the nodes; '
    'set "adapter": "angular-schematics" or remove the key to generate the application)'
)


def announce_base(base: Base, adapter: str, *, generates: bool = False) -> None:
    """Warnings about the base, the mock notice and any drift, before anything runs.
    ``generates``: the adapter writes files (the mock with ``writeFiles``): no notice."""
    for warning in base.warnings:
        print(warning, file=sys.stderr)
    if adapter == MOCK_ADAPTER and not generates:
        print(MOCK_NOTICE)
    drift = base.drift
    if drift is not None and (drift.has_drift or drift.modified or drift.deleted):
        sys.stdout.write(render_drift(drift))


def record_workspace(
    planned: PlanResult, checkpoints: Mapping[str, ExecutionCheckpoint], workspace_root: Path
) -> WorkspaceRecord:
    """The fingerprint after a successful run: the previous one plus what this run wrote."""
    ran = {n.id for n in planned.plan.executable_nodes()}
    mutations: dict[str, list[str]] = {}
    for node_id, cp in checkpoints.items():
        if node_id not in ran or cp.status is not CheckpointStatus.SUCCESS:
            continue
        m = cp.runtime_mutation
        if m is not None:
            mutations[node_id] = [*m.created, *m.updated]
    previous = planned.base_state.workspace if planned.base_state is not None else None
    record = build_fingerprint(
        workspace_root,
        previous=previous,
        mutations=mutations,
        keep=(n.id for n in planned.plan.nodes),
    )
    if previous is not None:  # where the application lives is updated by the GitHub flow
        record = record.model_copy(
            update={"commit": previous.commit, "pull_request": previous.pull_request}
        )
    return record
