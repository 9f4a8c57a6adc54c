"""One node from first attempt to final outcome: checkpoints, events, retries, its log."""

from __future__ import annotations

import os
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from averos_ci._fs import atomic_write_text
from averos_ci.execute.checkpoints import CheckpointStore
from averos_ci.execute.contracts import (
    CancelToken,
    CheckpointStatus,
    ExecutionAdapter,
    ExecutionCheckpoint,
    ExecutionContext,
    ExecutionFailure,
    ExecutionResult,
    ExecutionState,
)
from averos_ci.execute.events import EventBus, NodeFailed, NodeStarted, NodeSucceeded
from averos_ci.execute.logs import node_log_path
from averos_ci.execute.summary import NodeOutcome, NodeRecord
from averos_ci.plan.model import PlanNode
from averos_ci.state.model import now_iso


@dataclass(frozen=True)
class AttemptPolicy:
    max_attempts: int = 1
    backoff_ms: int = 250  # before attempt n+1: backoff_ms * 2**(n-1), at most max_backoff_ms
    max_backoff_ms: int = 10_000

    def delay_s(self, attempt: int) -> float:
        delay_ms: int = min(self.backoff_ms * 2 ** (attempt - 1), self.max_backoff_ms)
        return delay_ms / 1000


class NodeExecutor:
    """Runs nodes through the adapter; safe to call from several worker threads."""

    def __init__(
        self,
        *,
        adapter: ExecutionAdapter,
        store: CheckpointStore,
        bus: EventBus,
        policy: AttemptPolicy,
        base_context: ExecutionContext,
        state: ExecutionState,
        stop: CancelToken,
        redact: Callable[[str], str] | None = None,
    ) -> None:
        self.stop = stop
        # removes the plan's sensitive values from failures and node logs (plan.sensitive)
        self.redact = redact
        self.adapter = adapter
        self.store = store
        self.bus = bus
        self.policy = policy
        self.base = base_context
        self.state = state
        self._state_lock = threading.Lock()

    @property
    def cancel(self) -> CancelToken:
        """Stop token: no new attempt starts once it is set (signal, time limit)."""
        return self.stop

    def run(self, node: PlanNode) -> NodeRecord:
        log_file = node_log_path(self.base.logs_dir, node.id)
        started = time.perf_counter()
        run_id, phase = self.base.run_id, node.phase.value
        attempt, max_attempts = 0, self.policy.max_attempts
        base = self.base
        # Hot path (10,000s of nodes): each transition reads the clock once.
        while True:
            attempt += 1
            now = now_iso()
            self.store.save(
                ExecutionCheckpoint(
                    node_id=node.id, status=CheckpointStatus.RUNNING, attempt=attempt,
                    failure=None, runtime_mutation=None, updated_at=now,
                )
            )  # fmt: skip
            self.bus.emit(
                NodeStarted(
                    run_id=run_id, timestamp=now, node_id=node.id, phase=phase,
                    attempt=attempt, max_attempts=max_attempts,
                )
            )  # fmt: skip
            if attempt > 1:
                # Logs are created by whoever has something to say: creating 10,000 empty
                # files costs more than the whole engine (and every fsync commits them).
                append_log(log_file, f"=== {node.id}: attempt {attempt}/{max_attempts} "
                           f"(run {run_id}) at {now}\n")  # fmt: skip
            context = ExecutionContext(
                dry_run=base.dry_run, workspace_root=base.workspace_root,
                logs_dir=base.logs_dir, attempt=attempt, run_id=run_id, cancel=base.cancel,
                log_file=log_file, development=base.development, verbose=base.verbose,
            )  # fmt: skip
            result = self._execute(node, context)
            elapsed = int((time.perf_counter() - started) * 1000)
            record = NodeRecord(
                node_id=node.id, phase=phase, command=node.command,
                outcome=NodeOutcome.SUCCEEDED, attempts=attempt, duration_ms=elapsed,
                failure=None, reason=None, resumed=False, log_file=str(log_file),
            )  # fmt: skip
            if result.success:
                with self._state_lock:
                    self.state.results[node.id] = result
                now = now_iso()
                self.store.save(
                    ExecutionCheckpoint(
                        node_id=node.id, status=CheckpointStatus.SUCCESS, attempt=attempt,
                        failure=None, runtime_mutation=result.runtime_mutation, updated_at=now,
                    )
                )  # fmt: skip
                self.bus.emit(
                    NodeSucceeded(
                        run_id=run_id, timestamp=now, node_id=node.id, phase=phase,
                        attempt=attempt, duration_ms=elapsed, resumed=False,
                    )
                )  # fmt: skip
                return record
            failure = result.failure or ExecutionFailure(
                code="ADAPTER_ERROR", message="the adapter reported failure without a reason"
            )
            append_log(
                log_file,
                f"--- {node.id} ({node.command}) attempt {attempt}/{max_attempts} failed: "
                f"{failure.code}: {failure.message}\n"
                + (f"{failure.details}\n" if failure.details else ""),
            )
            if self.base.cancel.cancelled and failure.code == "CANCELLED":
                # Interrupted: the RUNNING checkpoint stays, so resume runs it again.
                return record.model_copy(
                    update={
                        "outcome": NodeOutcome.CANCELLED,
                        "failure": failure,
                        "reason": self.cancel.reason,
                    }
                )
            will_retry = failure.retryable and attempt < max_attempts and not self.cancel.cancelled
            self.bus.emit(
                NodeFailed(
                    run_id=run_id,
                    timestamp=now_iso(),
                    node_id=node.id,
                    phase=phase,
                    attempt=attempt,
                    duration_ms=elapsed,
                    failure=failure,
                    will_retry=will_retry,
                )
            )
            if will_retry and not self.cancel.wait(self.policy.delay_s(attempt)):
                continue
            if will_retry:  # cancelled during the back-off
                return record.model_copy(
                    update={
                        "outcome": NodeOutcome.CANCELLED,
                        "failure": failure,
                        "reason": self.cancel.reason,
                    }
                )
            self.store.save(
                ExecutionCheckpoint(
                    node_id=node.id,
                    status=CheckpointStatus.FAILED,
                    attempt=attempt,
                    failure=failure,
                    updated_at=now_iso(),
                )
            )
            return record.model_copy(update={"outcome": NodeOutcome.FAILED, "failure": failure})

    def _execute(self, node: PlanNode, context: ExecutionContext) -> ExecutionResult:
        result = self._call_adapter(node, context)
        if self.redact is None:
            return result
        _redact_file(context.log_file, self.redact)
        failure = result.failure
        if failure is None:
            return result
        failure = failure.model_copy(
            update={
                "message": self.redact(failure.message),
                "details": self.redact(failure.details) if failure.details else failure.details,
            }
        )
        return result.model_copy(update={"failure": failure})

    def _call_adapter(self, node: PlanNode, context: ExecutionContext) -> ExecutionResult:
        started = time.perf_counter()
        try:
            return self.adapter.execute(node, context, self.state)
        except Exception as exc:  # an adapter bug must fail the node, not the runner
            return ExecutionResult(
                success=False,
                duration_ms=int((time.perf_counter() - started) * 1000),
                failure=ExecutionFailure(
                    code="ADAPTER_ERROR",
                    message=f"{type(exc).__name__}: {exc}",
                    retryable=True,
                    details=traceback.format_exc(limit=20),
                ),
            )


def append_log(path: Path, text: str) -> None:
    # os-level calls: an io.open per node costs more than the rest of the bookkeeping
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        os.write(fd, text.encode("utf-8"))
    finally:
        os.close(fd)


def _redact_file(path: Path, redact: Callable[[str], str]) -> None:
    """An adapter's log may echo a secret (a schematic's options, a generated file)."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return
    clean = redact(text)
    if clean != text:
        atomic_write_text(path, clean)
