"""The applied state: what the last fully successful run left the application as, which
adapter produced it, and the fingerprint of the workspace it describes (drift)."""

from averos_ci.state.drift import DriftReport, WorkspaceMismatch, detect_drift, render_drift
from averos_ci.state.model import (
    STATE_FORMAT_VERSION,
    AdapterRecord,
    AppliedState,
    NodeState,
    WorkspaceRecord,
    state_hash,
)
from averos_ci.state.store import FileStateStore, MemoryStateStore, StateStore

__all__ = [
    "STATE_FORMAT_VERSION",
    "AdapterRecord",
    "AppliedState",
    "DriftReport",
    "FileStateStore",
    "MemoryStateStore",
    "NodeState",
    "StateStore",
    "WorkspaceMismatch",
    "WorkspaceRecord",
    "detect_drift",
    "render_drift",
    "state_hash",
]
