"""The scheduling of one run: the executable part of the plan as a DAG (:class:`NodeGraph`),
and the loop where workers pick ready nodes themselves (no hand-off through the calling
thread, which would cost two thread wake-ups per node); the calling thread only watches the
time limit, stop requests and the grace period."""

from __future__ import annotations

import heapq
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable

from averos_ci._model import RunMode
from averos_ci.execute.attempts import NodeExecutor
from averos_ci.execute.checkpoints import CheckpointStore
from averos_ci.execute.contracts import (
    CancelToken,
    CheckpointStatus,
    ExecutionCheckpoint,
)
from averos_ci.execute.events import EventBus, NodeReady, NodeSkipped, NodeSucceeded
from averos_ci.execute.summary import NodeOutcome, NodeRecord
from averos_ci.plan.model import ExecutionPlan, PlanNode
from averos_ci.state.model import now_iso

_POLL_S = 0.05
_ABORT_WAIT_S = 2.0  # after the abort request, how long adapters get to return


class NodeGraph:
    """Executable nodes only; an edge to a ``skip`` node (or a node outside the plan) is
    already satisfied, since that element is applied."""

    def __init__(self, plan: ExecutionPlan) -> None:
        self.nodes: list[PlanNode] = plan.executable_nodes()
        self.order = {n.id: i for i, n in enumerate(self.nodes)}
        self.by_id = {n.id: n for n in self.nodes}
        self.deps: dict[str, tuple[str, ...]] = {}
        self.dependents: dict[str, list[str]] = {n.id: [] for n in self.nodes}
        for n in self.nodes:
            deps = tuple(dict.fromkeys(d for d in n.depends_on if d in self.by_id))
            self.deps[n.id] = deps
            for d in deps:
                self.dependents[d].append(n.id)

    def pending_counts(self, done: Iterable[str]) -> dict[str, int]:
        finished = set(done)
        return {
            n.id: sum(1 for d in self.deps[n.id] if d not in finished)
            for n in self.nodes
            if n.id not in finished
        }

    def descendants(self, node_id: str) -> list[str]:
        """Every node that depends on ``node_id``, directly or not, in plan order."""
        seen: set[str] = set()
        queue = deque(self.dependents[node_id])
        while queue:
            current = queue.popleft()
            if current not in seen:
                seen.add(current)
                queue.extend(self.dependents[current])
        return sorted(seen, key=self.order.__getitem__)


class Scheduler:
    def __init__(
        self, *, plan: ExecutionPlan, executor: NodeExecutor, store: CheckpointStore,
        bus: EventBus, mode: RunMode, concurrency: int, deadline: float | None,
        timeout_ms: int | None, grace_ms: int, stop: CancelToken, abort: CancelToken,
        abort_now: threading.Event, run_id: str,
    ) -> None:  # fmt: skip
        self.graph = NodeGraph(plan)
        self.executor, self.store, self.bus, self.mode = executor, store, bus, mode
        self.concurrency = max(1, concurrency)
        self.deadline, self.timeout_ms, self.grace_ms = deadline, timeout_ms, grace_ms
        self.stop, self.abort, self.abort_now, self.run_id = stop, abort, abort_now, run_id
        self.records: dict[str, NodeRecord] = {}
        self.ready: list[tuple[int, str]] = []
        self.running: set[str] = set()
        self.pending: dict[str, int] = {}
        self.stop_reason: str | None = None  # strict-mode failure
        self.cond = threading.Condition()
        self.finished = threading.Event()
        self.closed = False  # set when the run is over: late results are ignored
        self.error: BaseException | None = None  # raised by a worker outside any node

    def run(self, resumed: dict[str, ExecutionCheckpoint]) -> dict[str, NodeRecord]:
        resumed = {k: v for k, v in resumed.items() if k in self.graph.by_id}
        at = now_iso()  # reported together, at the run's start
        for node_id, cp in resumed.items():
            node = self.graph.by_id[node_id]
            self.records[node_id] = NodeRecord(
                node_id=node_id, phase=node.phase.value, command=node.command,
                outcome=NodeOutcome.SUCCEEDED, attempts=cp.attempt, resumed=True)  # fmt: skip
            self.bus.emit(NodeSucceeded(run_id=self.run_id, timestamp=at, node_id=node_id,
                                        phase=node.phase.value, attempt=cp.attempt,
                                        duration_ms=0, resumed=True))  # fmt: skip
        self.pending = self.graph.pending_counts(resumed)
        with self.cond:
            for node_id, count in self.pending.items():
                if count == 0:
                    self._make_ready(node_id)
            self._check_finished()
        for i in range(self.concurrency):
            threading.Thread(target=self._work, daemon=True, name=f"averos-node-{i}").start()
        self._watch()
        with self.cond:
            self.closed = True
            self.cond.notify_all()
            if self.error is not None:
                raise self.error
            self._finish_undone()
            return dict(self.records)

    # -- calling thread -------------------------------------------------------------------

    def _watch(self) -> None:
        grace_until: float | None = None
        while not self.finished.wait(self._timeout()):
            if self.deadline is not None and time.perf_counter() >= self.deadline:
                self.stop.cancel(f"timeout: the run exceeded timeoutMs={self.timeout_ms}")
            if not self.stop.cancelled:
                continue
            with self.cond:
                self.cond.notify_all()  # idle workers see the stop and leave
                self._check_finished()
            if grace_until is None:
                grace_until = time.perf_counter() + self.grace_ms / 1000
            if self.abort_now.is_set() or time.perf_counter() >= grace_until:
                if self.abort.cancelled:
                    return  # abandon the running nodes: they stay RUNNING (interrupted)
                self.abort.cancel(f"aborted: {self.stop.reason}")
                grace_until = time.perf_counter() + _ABORT_WAIT_S
                self.abort_now.clear()

    def _timeout(self) -> float:
        if self.deadline is None:
            return _POLL_S
        return max(0.001, min(_POLL_S, self.deadline - time.perf_counter()))

    # -- worker threads -------------------------------------------------------------------

    def _work(self) -> None:
        try:
            while (node_id := self._next()) is not None:
                record = self.executor.run(self.graph.by_id[node_id])
                with self.cond:
                    if self.closed:
                        return
                    self._complete(record)
        except BaseException as exc:  # e.g. the checkpoint disk is full: end the run, re-raise
            with self.cond:
                self.error = self.error or exc
                self.finished.set()
                self.cond.notify_all()

    def _next(self) -> str | None:
        with self.cond:
            while True:
                if self.closed or self.finished.is_set():
                    return None
                if self.ready and not self._stopping():
                    _, node_id = heapq.heappop(self.ready)
                    self.running.add(node_id)
                    return node_id
                if not self.running:
                    self._check_finished()
                    return None
                self.cond.wait()

    # -- under self.cond ------------------------------------------------------------------

    def _stopping(self) -> bool:
        return self.stop.cancelled or self.stop_reason is not None

    def _check_finished(self) -> None:
        if not self.running and (not self.ready or self._stopping()):
            self.finished.set()
            self.cond.notify_all()

    def _complete(self, record: NodeRecord) -> None:
        self.running.discard(record.node_id)
        self.records[record.node_id] = record
        if record.outcome is NodeOutcome.SUCCEEDED:
            for dep in self.graph.dependents[record.node_id]:
                self.pending[dep] -= 1
                if self.pending[dep] == 0:
                    self._make_ready(dep)
        elif record.outcome is NodeOutcome.FAILED:
            if self.mode is RunMode.STRICT:
                self.stop_reason = self.stop_reason or (
                    f"strict mode: the run stopped after {record.node_id} failed")  # fmt: skip
            else:
                self._skip_dependents(record.node_id)
        if self.ready and self.concurrency > 1:
            self.cond.notify_all()
        self._check_finished()

    def _make_ready(self, node_id: str) -> None:
        heapq.heappush(self.ready, (self.graph.order[node_id], node_id))
        node = self.graph.by_id[node_id]
        self.bus.emit(NodeReady(run_id=self.run_id, timestamp=now_iso(), node_id=node_id,
                                phase=node.phase.value))  # fmt: skip

    def _skip_dependents(self, failed_id: str) -> None:
        reason = f"dependency {failed_id} failed"
        for node_id in self.graph.descendants(failed_id):
            if node_id in self.records:
                continue
            node = self.graph.by_id[node_id]
            now = now_iso()
            self.store.save(ExecutionCheckpoint(node_id=node_id, status=CheckpointStatus.SKIPPED,
                                                updated_at=now))  # fmt: skip
            self.records[node_id] = NodeRecord(node_id=node_id, phase=node.phase.value,
                                               command=node.command, reason=reason,
                                               outcome=NodeOutcome.SKIPPED)  # fmt: skip
            self.bus.emit(NodeSkipped(run_id=self.run_id, timestamp=now, node_id=node_id,
                                      phase=node.phase.value, reason=reason))  # fmt: skip

    def _finish_undone(self) -> None:
        for node in self.graph.nodes:
            if node.id in self.records:
                continue
            reason: str | None
            if node.id in self.running:
                reason = f"abandoned after the grace period ({self.stop.reason})"
            else:
                reason = (self.stop.reason if self.stop.cancelled else None) or self.stop_reason
            self.records[node.id] = NodeRecord(
                node_id=node.id, phase=node.phase.value, command=node.command,
                outcome=NodeOutcome.CANCELLED, reason=reason or "not run")  # fmt: skip


OrderKey = Callable[[NodeRecord], int]


def order_key(plan: ExecutionPlan) -> OrderKey:
    order = {n.id: i for i, n in enumerate(plan.nodes)}
    return lambda record: order.get(record.node_id, -1)
