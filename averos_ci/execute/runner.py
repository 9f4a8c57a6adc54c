"""The Runner: schedules a plan's executable nodes through an adapter, with checkpoints.

Scheduling happens on the calling thread; nodes run on ``concurrency`` daemon worker
threads (1 unless the adapter tolerates concurrency). On cancellation (signal, time
limit) nothing new starts, running nodes get ``grace_ms`` to finish and are then abandoned
(their RUNNING checkpoint makes them "interrupted" for ``--resume``); a second signal
(:mod:`averos_ci.execute.signals`) abandons them at once.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from averos_ci._model import RunMode
from averos_ci.errors import StateError
from averos_ci.execute.attempts import AttemptPolicy, NodeExecutor
from averos_ci.execute.averos_checkpoints import AVEROS_UNBOUND
from averos_ci.execute.checkpoints import CheckpointLog, CheckpointStore
from averos_ci.execute.contracts import (
    CancelToken,
    CheckpointStatus,
    ExecutionAdapter,
    ExecutionCheckpoint,
    ExecutionContext,
    ExecutionResult,
    ExecutionState,
)
from averos_ci.execute.events import (
    EventBus,
    NodeSucceeded,
    RunnerCompleted,
    RunnerEventListener,
)
from averos_ci.execute.logs import NODE_LOG_DIR
from averos_ci.execute.scheduler import Scheduler, order_key
from averos_ci.execute.signals import abortable
from averos_ci.execute.summary import (
    NodeOutcome,
    NodeRecord,
    RunnerSummary,
    predicted_not_applied,
    summarize,
)
from averos_ci.plan.model import ExecutionPlan
from averos_ci.plan.sensitive import plan_scrubber
from averos_ci.state.model import now_iso


@dataclass(frozen=True)
class RunnerOptions:
    workspace_root: Path
    logs_dir: Path
    mode: RunMode = RunMode.STRICT
    max_attempts: int = 1
    timeout_ms: int | None = None
    concurrency: int = 1
    dry_run: bool = False
    development: bool = False
    verbose: bool = False
    backoff_ms: int = 250
    grace_ms: int = 10_000


@dataclass(frozen=True)
class RunResult:
    run_id: str
    plan_hash: str
    summary: RunnerSummary
    records: tuple[NodeRecord, ...]
    interrupted: str | None  # cancel reason when nodes were left undone by a signal/timeout


class Runner:
    def __init__(
        self,
        *,
        plan: ExecutionPlan,
        adapter: ExecutionAdapter,
        checkpoints: CheckpointStore,
        options: RunnerOptions,
        listeners: Sequence[RunnerEventListener] = (),
        cancel: CancelToken | None = None,
        run_id: str | None = None,
    ) -> None:
        self.plan = plan
        self.adapter = adapter
        self.store = checkpoints
        self.options = options
        self.bus = EventBus(listeners)
        self.cancel = cancel or CancelToken()
        self.run_id = run_id or uuid.uuid4().hex
        self._abort = threading.Event()
        # Adapters see this token, not ``cancel``: a stop request lets running nodes finish;
        # only when the grace period is over are they asked to abort.
        self.abort_token = CancelToken()

    def abort(self) -> None:
        """Abandon the running nodes now (a second signal): no grace period, no wait for the
        adapters to answer their abort (the commands they started are already ended)."""
        self.abort_token.cancel(f"aborted: {self.cancel.reason or 'abort requested'}")
        self._abort.set()

    def run(self, *, resume: bool = False) -> RunResult:
        started = time.perf_counter()
        log = self.store.read()
        if log.completed and log.plan_hash != self.plan.plan_hash:
            # A crash hit a successful run after its state was saved, before clean-up.
            self.store.clear()
            if resume and not self.plan.has_changes:
                return self._report_finished(log, started)
        done = self._resumable(log, resume)
        opts = self.options
        (opts.logs_dir / NODE_LOG_DIR).mkdir(parents=True, exist_ok=True)
        base = ExecutionContext(
            dry_run=opts.dry_run,
            workspace_root=opts.workspace_root,
            logs_dir=opts.logs_dir,
            attempt=0,
            run_id=self.run_id,
            cancel=self.abort_token,
            log_file=opts.logs_dir / "adapter.log",
            development=opts.development,
            verbose=opts.verbose,
        )
        self.adapter.preflight(base)
        self.store.begin(plan_hash=self.plan.plan_hash, run_id=self.run_id)
        executor = NodeExecutor(
            adapter=self.adapter,
            store=self.store,
            bus=self.bus,
            policy=AttemptPolicy(max_attempts=opts.max_attempts, backoff_ms=opts.backoff_ms),
            redact=plan_scrubber(self.plan),
            base_context=base,
            state=ExecutionState(
                cwd=opts.workspace_root,
                results={  # what earlier runs did, for adapters that build on it
                    k: ExecutionResult(
                        success=True, duration_ms=0, runtime_mutation=cp.runtime_mutation
                    )
                    for k, cp in done.items()
                },
            ),
            stop=self.cancel,
        )
        self.adapter.open(base)
        try:
            parallel = opts.concurrency if self.adapter.supports_concurrency else 1
            deadline = None if opts.timeout_ms is None else started + opts.timeout_ms / 1000
            with abortable(self.abort):
                records = Scheduler(
                    plan=self.plan, executor=executor, store=self.store, bus=self.bus,
                    mode=opts.mode, concurrency=parallel, deadline=deadline,
                    timeout_ms=opts.timeout_ms, grace_ms=opts.grace_ms, stop=self.cancel,
                    abort=self.abort_token, abort_now=self._abort, run_id=self.run_id,
                ).run(done)  # fmt: skip
        finally:
            self.adapter.close()
        ordered = tuple(sorted(records.values(), key=order_key(self.plan)))
        nodes = {n.id: n for n in self.plan.nodes}
        summary = summarize(
            list(ordered),
            mode=opts.mode,
            duration_ms=int((time.perf_counter() - started) * 1000),
            not_applied=predicted_not_applied(  # of the nodes that ran: said, never hidden
                self.adapter,
                [nodes[r.node_id] for r in ordered if r.outcome is NodeOutcome.SUCCEEDED],
            ),
        )
        interrupted = self.cancel.reason if summary.cancelled and self.cancel.cancelled else None
        self.bus.emit(
            RunnerCompleted(
                run_id=self.run_id,
                timestamp=now_iso(),
                plan_hash=self.plan.plan_hash,
                summary=summary,
                interrupted=interrupted,
            )
        )
        return RunResult(
            run_id=self.run_id,
            plan_hash=self.plan.plan_hash,
            summary=summary,
            records=ordered,
            interrupted=interrupted,
        )

    def _report_finished(self, log: CheckpointLog, started: float) -> RunResult:
        """``--resume`` of a run that had finished: report it, there is nothing left to do."""
        plan_hash = log.plan_hash or self.plan.plan_hash
        records = tuple(
            NodeRecord(node_id=cp.node_id, phase=cp.node_id.partition(":")[0], command="",
                       outcome=NodeOutcome.SUCCEEDED, attempts=cp.attempt, resumed=True)
            for cp in log.checkpoints.values()
        )  # fmt: skip
        for r in records:
            self.bus.emit(NodeSucceeded(run_id=self.run_id, timestamp=now_iso(),
                                        node_id=r.node_id, phase=r.phase, attempt=r.attempts,
                                        duration_ms=0, resumed=True))  # fmt: skip
        summary = summarize(list(records), mode=self.options.mode,
                            duration_ms=int((time.perf_counter() - started) * 1000))  # fmt: skip
        self.bus.emit(RunnerCompleted(run_id=self.run_id, timestamp=now_iso(),
                                      plan_hash=plan_hash, summary=summary))  # fmt: skip
        return RunResult(run_id=self.run_id, plan_hash=plan_hash, summary=summary,
                         records=records, interrupted=None)  # fmt: skip

    def _resumable(self, log: CheckpointLog, resume: bool) -> dict[str, ExecutionCheckpoint]:
        """SUCCESS checkpoints to keep; refuses checkpoints of another plan or a stray run."""
        if log.plan_hash is None or not log.checkpoints:
            return {}
        path = getattr(self.store, "path", None)
        if log.plan_hash == AVEROS_UNBOUND:  # Averos's checkpoints: bound to no plan
            if not resume:
                raise StateError(
                    "an unfinished Averos run left checkpoints",
                    path=path,
                    hint="pass --resume to continue it (nodes Averos finished are not run "
                    "again), or --replan to start over",
                )
            planned = {n.id for n in self.plan.executable_nodes()}
            return self._closed(
                {
                    k: v
                    for k, v in log.checkpoints.items()
                    if v.status is CheckpointStatus.SUCCESS and k in planned
                }
            )
        if log.plan_hash != self.plan.plan_hash:
            raise StateError(
                f"the checkpoints were made for plan {log.plan_hash[:12]}, but the current "
                f"plan is {self.plan.plan_hash[:12]}: refusing to resume another plan",
                path=path,
                hint="pass --replan to discard the checkpoints and start over",
            )
        if not resume:
            raise StateError(
                "an unfinished run of this plan left checkpoints",
                path=path,
                hint="pass --resume to continue it, or --replan to start over",
            )
        return self._closed(
            {k: v for k, v in log.checkpoints.items() if v.status is CheckpointStatus.SUCCESS}
        )

    def _closed(self, done: dict[str, ExecutionCheckpoint]) -> dict[str, ExecutionCheckpoint]:
        """A node runs only after its dependencies succeeded, so checkpoints that mark a node
        done but not one of its dependencies were not written by a run: refuse them."""
        executable = {n.id: n for n in self.plan.executable_nodes()}
        for node_id in done:
            node = executable.get(node_id)
            missing = [
                d for d in (node.depends_on if node else ()) if d in executable and d not in done
            ]
            if missing:
                raise StateError(
                    f"the checkpoints mark {node_id} done but not its dependency {missing[0]}: "
                    "they were not written by a run of this plan",
                    path=getattr(self.store, "path", None),
                    hint="pass --replan to discard the checkpoints and start over",
                )
        return done
