"""RunnerSummary (Averos's fields, exactly) and the per-node records reports are built from."""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum

from pydantic import Field

from averos_ci._model import RunMode, WireModel
from averos_ci.execute.adapters import adapter_generates
from averos_ci.execute.adapters.registry import instance_hook
from averos_ci.execute.contracts import ExecutionAdapter, ExecutionFailure
from averos_ci.plan.model import PlanNode

SUMMARY_FORMAT_VERSION = 1


class NodeFailureSummary(WireModel):
    node_id: str
    phase: str
    attempts: int
    failure: ExecutionFailure
    log_file: str | None = None


class NotAppliedSummary(WireModel):
    """A setting of an executed node the adapter had no way to apply (its ``not_applied``)."""

    node_id: str
    setting: str
    reason: str


class RunnerSummary(WireModel):
    total: int
    succeeded: int
    failed: int
    skipped: int
    cancelled: int
    duration_ms: int
    mode: RunMode
    success: bool
    failures: tuple[NodeFailureSummary, ...] = ()
    # averos-ci's: absent when empty (Averos's fields stay exactly Averos's)
    not_applied: tuple[NotAppliedSummary, ...] = Field(default=(), exclude_if=lambda v: not v)

    def lines_not_applied(self) -> list[str]:
        return [f"NOT APPLIED {n.node_id}: {n.setting}: {n.reason}" for n in self.not_applied]

    def to_file_json(self, *, adapter: str | None = None) -> dict[str, object]:
        """The ``summary.json`` document: the summary plus its ``formatVersion`` and the
        adapter that ran (an adapter that generates nothing has the file say so)."""
        doc: dict[str, object] = {"formatVersion": SUMMARY_FORMAT_VERSION, **self.to_wire()}
        if adapter is not None:
            doc["adapter"] = adapter
            if not adapter_generates(adapter):
                doc["generated"] = False
        return doc


class NodeOutcome(StrEnum):
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    SKIPPED = "skipped"
    CANCELLED = "cancelled"  # never started, or interrupted while running


class NodeRecord(WireModel):
    """How one executable node ended in this run (input of JUnit and markdown reports)."""

    node_id: str
    phase: str
    command: str
    outcome: NodeOutcome
    attempts: int = 0
    duration_ms: int = 0
    failure: ExecutionFailure | None = None
    reason: str | None = None  # skip / cancel reason
    resumed: bool = False  # SUCCESS checkpoint of an earlier run
    log_file: str | None = None


def predicted_not_applied(
    adapter: ExecutionAdapter, nodes: Iterable[PlanNode]
) -> tuple[NotAppliedSummary, ...]:
    """What the adapter says it did not apply of ``nodes`` (its optional ``not_applied``)."""
    hook = instance_hook(adapter, "not_applied")
    return tuple(
        NotAppliedSummary(node_id=node.id, setting=n.setting, reason=n.reason)
        for node in nodes
        for n in hook(node)
    )


def summarize(
    records: list[NodeRecord],
    *,
    mode: RunMode,
    duration_ms: int,
    not_applied: tuple[NotAppliedSummary, ...] = (),
) -> RunnerSummary:
    counts = dict.fromkeys(NodeOutcome, 0)
    for r in records:
        counts[r.outcome] += 1
    failures = tuple(
        NodeFailureSummary(
            node_id=r.node_id,
            phase=r.phase,
            attempts=r.attempts,
            failure=r.failure,
            log_file=r.log_file,
        )
        for r in records
        if r.outcome is NodeOutcome.FAILED and r.failure is not None
    )
    return RunnerSummary(
        total=len(records),
        succeeded=counts[NodeOutcome.SUCCEEDED],
        failed=counts[NodeOutcome.FAILED],
        skipped=counts[NodeOutcome.SKIPPED],
        cancelled=counts[NodeOutcome.CANCELLED],
        duration_ms=duration_ms,
        mode=mode,
        success=counts[NodeOutcome.SUCCEEDED] == len(records),
        failures=failures,
        not_applied=not_applied,
    )
