"""Layer 4: execute a plan through an adapter, with checkpoints, events and reports."""

from averos_ci._model import RunMode
from averos_ci.execute.adapters import available_adapters, get_adapter
from averos_ci.execute.apply import ApplyOutcome, PlanMismatch, PlanNotApplicable, apply
from averos_ci.execute.checkpoints import (
    CheckpointLog,
    CheckpointStore,
    FileCheckpointStore,
    MemoryCheckpointStore,
)
from averos_ci.execute.contracts import (
    AdapterFactory,
    CancelToken,
    CheckpointStatus,
    ExecutionAdapter,
    ExecutionCheckpoint,
    ExecutionContext,
    ExecutionFailure,
    ExecutionResult,
    ExecutionState,
    RuntimeMutation,
)
from averos_ci.execute.events import (
    EventType,
    NodeFailed,
    NodeReady,
    NodeSkipped,
    NodeStarted,
    NodeSucceeded,
    RunnerCompleted,
    RunnerEvent,
    RunnerEventListener,
    parse_event,
)
from averos_ci.execute.listeners import CollectingListener, JsonlEventLog
from averos_ci.execute.runner import Runner, RunnerOptions, RunResult
from averos_ci.execute.summary import NodeFailureSummary, NodeOutcome, NodeRecord, RunnerSummary

__all__ = [
    "AdapterFactory",
    "ApplyOutcome",
    "CancelToken",
    "CheckpointLog",
    "CheckpointStatus",
    "CheckpointStore",
    "CollectingListener",
    "EventType",
    "ExecutionAdapter",
    "ExecutionCheckpoint",
    "ExecutionContext",
    "ExecutionFailure",
    "ExecutionResult",
    "ExecutionState",
    "FileCheckpointStore",
    "JsonlEventLog",
    "MemoryCheckpointStore",
    "NodeFailed",
    "NodeFailureSummary",
    "NodeOutcome",
    "NodeReady",
    "NodeRecord",
    "NodeSkipped",
    "NodeStarted",
    "NodeSucceeded",
    "PlanMismatch",
    "PlanNotApplicable",
    "RunMode",
    "RunResult",
    "Runner",
    "RunnerCompleted",
    "RunnerEvent",
    "RunnerEventListener",
    "RunnerOptions",
    "RunnerSummary",
    "RuntimeMutation",
    "apply",
    "available_adapters",
    "get_adapter",
    "parse_event",
]
