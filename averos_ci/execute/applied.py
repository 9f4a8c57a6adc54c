"""A run's base and what it leaves: what it says about its base before it starts, and the new
applied state it records after it succeeded (with the workspace's fingerprint,
:mod:`averos_ci.state.fingerprint`)."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path

from averos_ci.config import RunConfig
from averos_ci.execute.checkpoints import CheckpointStore
from averos_ci.execute.contracts import CheckpointStatus, ExecutionAdapter, ExecutionCheckpoint
from averos_ci.plan.model import Action
from averos_ci.plan.planner import PlanResult, args_hash
from averos_ci.state import AppliedState, FileStateStore, NodeState
from averos_ci.state.drift import render_drift
from averos_ci.state.fingerprint import adapter_record, build_fingerprint
from averos_ci.state.guard import Planned
from averos_ci.state.model import WorkspaceRecord, now_iso


def announce_base(base: Planned, *, notice: str | None) -> None:
    """Warnings about the base, the adapter's notice (:func:`adapter_notice`) and any drift,
    before anything runs."""
    for warning in base.warnings:
        print(warning, file=sys.stderr)
    if notice is not None:
        print(notice)
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


def record_success(
    planned: PlanResult,
    store: CheckpointStore,
    state_store: FileStateStore,
    *,
    config: RunConfig,
    adapter: ExecutionAdapter,
) -> AppliedState | None:
    plan, base = planned.plan, planned.base_state
    record = adapter_record(adapter, config.adapter_options)
    if not plan.has_changes and base is not None and base.adapter == record:
        store.clear()
        return base
    workspace = record_workspace(planned, store.load(), config.workspace_root)
    applied_at = now_iso()
    previous = base.node_states if base is not None else {}
    node_states = {
        n.id: (
            previous[n.id]
            if n.action is Action.SKIP and n.id in previous
            else NodeState(args_hash=args_hash(n), applied_at=applied_at)
        )
        for n in plan.nodes
    }
    if base is not None:
        state = base.successor(
            manifest=planned.manifest,
            manifest_hash=plan.manifest_hash,
            node_states=node_states,
            adapter=record,
            workspace=workspace,
        )
    else:
        state = AppliedState.first(
            manifest=planned.manifest,
            manifest_hash=plan.manifest_hash,
            node_states=node_states,
            adapter=record,
            workspace=workspace,
        )
    state_store.save(state)
    store.clear()
    return state
