"""Layer 4: execute a plan through an adapter, with checkpoints, events and reports (the plan
comes from :mod:`averos_ci.planning`, whose ``apply`` is the library side of ``run``).

The names are imported on first use (PEP 562): importing ``averos_ci.execute.adapters`` (the
planning service does) does not load the runner or the apply.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from averos_ci._lazy import lazy_exports

if TYPE_CHECKING:
    from averos_ci._model import RunMode
    from averos_ci.execute.adapters import available_adapters, get_adapter
    from averos_ci.execute.apply import (
        ApplyOutcome,
        PlanMismatch,
        PlanNotApplicable,
        execute_planned,
    )
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
    "available_adapters",
    "execute_planned",
    "get_adapter",
    "parse_event",
]

_HOMES = {
    "RunMode": "averos_ci._model",
    "available_adapters": "averos_ci.execute.adapters",
    "get_adapter": "averos_ci.execute.adapters",
    "ApplyOutcome": "averos_ci.execute.apply",
    "PlanMismatch": "averos_ci.execute.apply",
    "PlanNotApplicable": "averos_ci.execute.apply",
    "execute_planned": "averos_ci.execute.apply",
    "CheckpointLog": "averos_ci.execute.checkpoints",
    "CheckpointStore": "averos_ci.execute.checkpoints",
    "FileCheckpointStore": "averos_ci.execute.checkpoints",
    "MemoryCheckpointStore": "averos_ci.execute.checkpoints",
    "AdapterFactory": "averos_ci.execute.contracts",
    "CancelToken": "averos_ci.execute.contracts",
    "CheckpointStatus": "averos_ci.execute.contracts",
    "ExecutionAdapter": "averos_ci.execute.contracts",
    "ExecutionCheckpoint": "averos_ci.execute.contracts",
    "ExecutionContext": "averos_ci.execute.contracts",
    "ExecutionFailure": "averos_ci.execute.contracts",
    "ExecutionResult": "averos_ci.execute.contracts",
    "ExecutionState": "averos_ci.execute.contracts",
    "RuntimeMutation": "averos_ci.execute.contracts",
    "EventType": "averos_ci.execute.events",
    "NodeFailed": "averos_ci.execute.events",
    "NodeReady": "averos_ci.execute.events",
    "NodeSkipped": "averos_ci.execute.events",
    "NodeStarted": "averos_ci.execute.events",
    "NodeSucceeded": "averos_ci.execute.events",
    "RunnerCompleted": "averos_ci.execute.events",
    "RunnerEvent": "averos_ci.execute.events",
    "RunnerEventListener": "averos_ci.execute.events",
    "parse_event": "averos_ci.execute.events",
    "CollectingListener": "averos_ci.execute.listeners",
    "JsonlEventLog": "averos_ci.execute.listeners",
    "Runner": "averos_ci.execute.runner",
    "RunnerOptions": "averos_ci.execute.runner",
    "RunResult": "averos_ci.execute.runner",
    "NodeFailureSummary": "averos_ci.execute.summary",
    "NodeOutcome": "averos_ci.execute.summary",
    "NodeRecord": "averos_ci.execute.summary",
    "RunnerSummary": "averos_ci.execute.summary",
}

__getattr__, __dir__ = lazy_exports(__name__, _HOMES, globals(), __all__)
