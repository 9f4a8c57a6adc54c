"""Failure hints name an action that can succeed: a re-run only for retryable failures."""

from __future__ import annotations

from averos_ci._model import RunMode
from averos_ci.execute.contracts import ExecutionFailure
from averos_ci.execute.hints import apply_failure_hint, run_failure_hint
from averos_ci.execute.summary import NodeFailureSummary, RunnerSummary


def summary(*retryable: bool) -> RunnerSummary:
    failures = tuple(
        NodeFailureSummary(
            node_id=f"entity:E{i}",
            phase="entity",
            attempts=1,
            failure=ExecutionFailure(code="SCHEMATIC_FAILED", message="boom", retryable=r),
        )
        for i, r in enumerate(retryable)
    )
    return RunnerSummary(
        total=3, succeeded=3 - len(failures), failed=len(failures), skipped=0, cancelled=0,
        duration_ms=1, mode=RunMode.STRICT, success=not failures, failures=failures,
    )  # fmt: skip


def test_retryable_failures_are_rerun() -> None:
    hint = apply_failure_hint(summary(True, True), interrupted=None, branch="s", project="p")
    assert hint.startswith("re-run the job")
    assert "run the same command again with --resume" in run_failure_hint(
        summary(True), logs_dir="logs"
    )


def test_interruptions_are_resumed() -> None:
    hint = apply_failure_hint(summary(), interrupted="SIGTERM", branch="s", project="p")
    assert hint.startswith("re-run the job")


def test_permanent_failures_say_what_to_change() -> None:
    hint = apply_failure_hint(summary(True, False), interrupted=None, branch="st", project="p")
    assert not hint.startswith("re-run the job")
    assert "not transient" in hint and "entity:E1: SCHEMATIC_FAILED" in hint
    assert "averos-ci state abandon --project p" in hint and "'st'" in hint
    assert "pull request with the fix" in hint and "delete" not in hint
    local = run_failure_hint(summary(False), logs_dir="logs")
    assert local.startswith("fix the cause first") and "--replan" in local
