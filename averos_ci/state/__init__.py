"""The applied state: what the last fully successful run left the application as."""

from averos_ci.state.model import STATE_FORMAT_VERSION, AppliedState, NodeState, state_hash
from averos_ci.state.store import FileStateStore, MemoryStateStore, StateStore

__all__ = [
    "STATE_FORMAT_VERSION",
    "AppliedState",
    "FileStateStore",
    "MemoryStateStore",
    "NodeState",
    "StateStore",
    "state_hash",
]
