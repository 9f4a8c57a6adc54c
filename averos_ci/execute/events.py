"""RunnerEvent: what the runner tells its listeners, one typed model per event kind.

Listeners are called synchronously under one lock (so they need not be thread-safe) and
are isolated: a listener that raises is reported once on stderr and never breaks the run.
"""

from __future__ import annotations

import contextlib
import sys
import threading
from collections.abc import Iterable
from enum import StrEnum
from typing import Annotated, Literal, Protocol, runtime_checkable

from pydantic import Field, TypeAdapter

from averos_ci._model import WireModel
from averos_ci.execute.contracts import ExecutionFailure
from averos_ci.execute.summary import RunnerSummary


class EventType(StrEnum):
    NODE_READY = "NODE_READY"
    NODE_STARTED = "NODE_STARTED"
    NODE_SUCCEEDED = "NODE_SUCCEEDED"
    NODE_FAILED = "NODE_FAILED"
    NODE_SKIPPED = "NODE_SKIPPED"
    RUNNER_COMPLETED = "RUNNER_COMPLETED"


class _Event(WireModel):
    run_id: str
    timestamp: str  # ISO-8601 UTC


class _NodeEvent(_Event):
    node_id: str
    phase: str
    attempt: int = 0  # 0 before the first attempt (READY, SKIPPED)


class NodeReady(_NodeEvent):
    type: Literal[EventType.NODE_READY] = EventType.NODE_READY


class NodeStarted(_NodeEvent):
    type: Literal[EventType.NODE_STARTED] = EventType.NODE_STARTED
    max_attempts: int = 1


class NodeSucceeded(_NodeEvent):
    type: Literal[EventType.NODE_SUCCEEDED] = EventType.NODE_SUCCEEDED
    duration_ms: int
    resumed: bool = False  # True: SUCCESS checkpoint of an earlier run, not executed again


class NodeFailed(_NodeEvent):
    type: Literal[EventType.NODE_FAILED] = EventType.NODE_FAILED
    duration_ms: int
    failure: ExecutionFailure
    will_retry: bool = False  # another attempt follows


class NodeSkipped(_NodeEvent):
    type: Literal[EventType.NODE_SKIPPED] = EventType.NODE_SKIPPED
    reason: str


class RunnerCompleted(_Event):
    type: Literal[EventType.RUNNER_COMPLETED] = EventType.RUNNER_COMPLETED
    plan_hash: str
    summary: RunnerSummary
    interrupted: str | None = None  # the cancel reason when the run was cut short


RunnerEvent = Annotated[
    NodeReady | NodeStarted | NodeSucceeded | NodeFailed | NodeSkipped | RunnerCompleted,
    Field(discriminator="type"),
]
RUNNER_EVENT_ADAPTER: TypeAdapter[RunnerEvent] = TypeAdapter(RunnerEvent)


def parse_event(line: str | bytes) -> RunnerEvent:
    """Read back one line of ``events.jsonl``."""
    return RUNNER_EVENT_ADAPTER.validate_json(line)


@runtime_checkable
class RunnerEventListener(Protocol):
    def on_event(self, event: RunnerEvent) -> None: ...


class EventBus:
    """Fans events out to listeners; isolates their failures from the run."""

    def __init__(self, listeners: Iterable[RunnerEventListener] = ()) -> None:
        self._listeners = list(listeners)
        self._lock = threading.Lock()
        self._broken: set[int] = set()

    def emit(self, event: RunnerEvent) -> None:
        with self._lock:
            for listener in self._listeners:
                try:
                    listener.on_event(event)
                except Exception as exc:  # a listener must never break the run
                    if id(listener) not in self._broken:
                        self._broken.add(id(listener))
                        _warn(
                            f"warning: event listener {type(listener).__name__} raised "
                            f"{type(exc).__name__}: {exc} (ignored)"
                        )


def _warn(message: str) -> None:
    with contextlib.suppress(OSError, ValueError):  # stderr closed or a broken pipe
        print(message, file=sys.stderr, flush=True)
