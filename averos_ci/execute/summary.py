"""RunnerSummary (Averos's fields, exactly) and the per-node records reports are built from."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from enum import StrEnum

from pydantic import Field

from averos_ci._model import RunMode, WireModel
from averos_ci.execute.adapters import adapter_generates
from averos_ci.execute.adapters.registry import instance_hook
from averos_ci.execute.contracts import ExecutionAdapter, ExecutionFailure
from averos_ci.plan.model import PlanNode
from averos_ci.plan.patch import CodePatch, FileStatus

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


class CodeChangeSummary(WireModel):
    """What a regenerating run wrote into the workspace: the code change, file by file."""

    files: int  # written or deleted
    created: int
    changed: int
    renamed: int
    deleted: int
    conflicts: int  # written with conflict markers to resolve (``--merge-conflicts=markers``)
    added: int  # lines, as the plan's code change counts them
    removed: int
    duration_ms: int  # merging and writing it (the generation before it is not included)


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
    code_change: CodeChangeSummary | None = Field(default=None, exclude_if=lambda v: v is None)

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


CODE_CHANGE_PHASE = "code-change"


def with_code_change(
    summary: RunnerSummary,
    records: Sequence[NodeRecord],
    patch: CodePatch,
    *,
    duration_ms: int,
) -> tuple[RunnerSummary, tuple[NodeRecord, ...]]:
    """A regenerating run's summary and records once its code change is written: the nodes
    (the clean generation's) keep Averos's counts; ``codeChange`` counts the files, the run's
    duration includes writing them, and each file is a record (``file:<path>``, phase
    ``code-change``: a JUnit test case, a line of ``summary.txt``). The change is written as one
    step: its duration is shared among its files."""
    written = [f for f in patch.files if f.path in patch.contents]
    statuses = Counter(f.status for f in written)
    change = CodeChangeSummary(
        files=len(written),
        created=statuses[FileStatus.CREATED],
        changed=statuses[FileStatus.CHANGED],
        renamed=statuses[FileStatus.RENAMED],
        deleted=statuses[FileStatus.DELETED],
        conflicts=sum(1 for f in written if f.conflict is not None),
        added=sum(f.added for f in written),
        removed=sum(f.removed for f in written),
        duration_ms=duration_ms,
    )
    share = duration_ms // len(written) if written else 0
    files = tuple(
        NodeRecord(
            node_id=f"file:{f.path}",
            phase=CODE_CHANGE_PHASE,
            command=f.status.value,
            outcome=NodeOutcome.SUCCEEDED,
            attempts=1,
            duration_ms=share,
        )
        for f in sorted(written, key=lambda f: f.path)
    )
    total_ms = summary.duration_ms + duration_ms
    return summary.model_copy(update={"code_change": change, "duration_ms": total_ms}), (
        *records,
        *files,
    )
