"""Layer 4 contracts (names from Averos; snake_case in Python, camelCase in JSON)."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any, ClassVar, Protocol, runtime_checkable

from averos_ci._model import RunMode as RunMode  # re-exported: part of the contracts
from averos_ci._model import WireModel
from averos_ci.plan.model import PlanNode


class CheckpointStatus(StrEnum):
    RUNNING = "RUNNING"  # started, not finished: an interrupted node when found on resume
    SUCCESS = "SUCCESS"
    FAILED = "FAILED"
    SKIPPED = "SKIPPED"


class RuntimeMutation(WireModel):
    """What a node changed in the workspace, as paths relative to ``workspaceRoot``."""

    created: tuple[str, ...] = ()
    updated: tuple[str, ...] = ()
    deleted: tuple[str, ...] = ()


class ExecutionFailure(WireModel):
    code: str  # e.g. SCHEMATIC_FAILED, TIMEOUT, CANCELLED, UNSUPPORTED, ADAPTER_ERROR
    message: str
    retryable: bool = False
    details: str | None = None  # command, exit code, output excerpt


class ExecutionResult(WireModel):
    success: bool
    duration_ms: int
    failure: ExecutionFailure | None = None
    runtime_mutation: RuntimeMutation | None = None


class ExecutionCheckpoint(WireModel):
    node_id: str
    status: CheckpointStatus
    attempt: int = 1
    failure: ExecutionFailure | None = None
    runtime_mutation: RuntimeMutation | None = None
    updated_at: str  # ISO-8601 UTC


class CancelToken:
    """Set when the run must stop: signal, time limit or strict-mode failure."""

    def __init__(self) -> None:
        self._event = threading.Event()
        self.reason: str | None = None

    def cancel(self, reason: str) -> None:
        if not self._event.is_set():
            self.reason = reason
            self._event.set()

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    def wait(self, timeout: float) -> bool:
        return self._event.wait(timeout)


@dataclass(frozen=True)
class ExecutionContext:
    dry_run: bool
    workspace_root: Path
    logs_dir: Path
    attempt: int
    run_id: str
    cancel: CancelToken
    log_file: Path  # this node's log; adapters append the tool output here
    development: bool = False
    verbose: bool = False


@dataclass
class ExecutionState:
    cwd: Path
    results: dict[str, ExecutionResult] = field(default_factory=dict)


@dataclass(frozen=True)
class NotApplied:
    """A setting a node states that the adapter cannot make take effect, and why."""

    setting: str  # the manifest key, e.g. ``memberTag``
    reason: str

    def __str__(self) -> str:
        return f"{self.setting}: {self.reason}"


class PredictsNotApplied(Protocol):
    """Optional adapter method: what of a node's settings will not take effect. It is a
    prediction from the node alone (no workspace read), shown in the plan before approval;
    adapters without it predict nothing."""

    def not_applied(self, node: PlanNode) -> list[NotApplied]: ...


@runtime_checkable
class ExecutionAdapter(Protocol):
    """An adapter realizes plan nodes. Built from ``adapterOptions`` by its registry factory."""

    name: ClassVar[str]
    supports_concurrency: ClassVar[bool]

    def preflight(self, context: ExecutionContext) -> None:
        """Check the toolchain before anything is written; raise ToolchainError if unusable."""

    def open(self, context: ExecutionContext) -> None:
        """Called once before the first node (start long-lived helpers here)."""

    def execute(
        self, node: PlanNode, context: ExecutionContext, state: ExecutionState
    ) -> ExecutionResult: ...

    def close(self) -> None:
        """Called once after the run, also after failures and interruptions."""


class AdapterFactory(Protocol):
    def __call__(self, options: Mapping[str, Any]) -> ExecutionAdapter: ...
