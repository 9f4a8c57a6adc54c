"""Mode semantics, retries and timeouts, table-driven against the mock adapter."""

from __future__ import annotations

from typing import Any

import pytest

from averos_ci.execute import (
    CheckpointStatus,
    EventType,
    MemoryCheckpointStore,
    NodeOutcome,
    RunMode,
)
from averos_ci.execute.adapters.mock import MockAdapter
from tests.execute.engine_plans import RunFn, build_plan

# a -> b -> d ; a -> c ; e independent
DIAMOND = {"a": [], "b": ["a"], "c": ["a"], "d": ["b"], "e": []}


def outcomes(result: Any) -> dict[str, str]:
    return {r.node_id: r.outcome.value for r in result.records}


CASES = [
    pytest.param(RunMode.STRICT, {}, 1,
                 dict.fromkeys("abcde", "succeeded"), (5, 5, 0, 0, 0), id="strict-all-ok"),
    pytest.param(RunMode.STRICT, {"failNodes": ["b"]}, 1,
                 {"a": "succeeded", "b": "failed", "c": "cancelled", "d": "cancelled",
                  "e": "cancelled"}, (5, 1, 1, 0, 3), id="strict-stops-at-first-failure"),
    pytest.param(RunMode.RESILIENT, {"failNodes": ["b"]}, 1,
                 {"a": "succeeded", "b": "failed", "c": "succeeded", "d": "skipped",
                  "e": "succeeded"}, (5, 3, 1, 1, 0), id="resilient-skips-dependents"),
    pytest.param(RunMode.RESILIENT, {"failNodes": ["a"]}, 1,
                 {"a": "failed", "b": "skipped", "c": "skipped", "d": "skipped",
                  "e": "succeeded"}, (5, 1, 1, 3, 0), id="resilient-transitive-skip"),
    pytest.param(RunMode.STRICT, {"failNodes": ["b"], "failAttempts": 2}, 3,
                 dict.fromkeys("abcde", "succeeded"), (5, 5, 0, 0, 0), id="retry-recovers"),
    pytest.param(RunMode.STRICT, {"failNodes": ["b"], "failAttempts": 3}, 3,
                 {"a": "succeeded", "b": "failed", "c": "cancelled", "d": "cancelled",
                  "e": "cancelled"}, (5, 1, 1, 0, 3), id="retries-exhausted"),
    pytest.param(RunMode.RESILIENT, {"failNodes": ["e"], "failAttempts": 1}, 2,
                 dict.fromkeys("abcde", "succeeded"), (5, 5, 0, 0, 0), id="resilient-retry"),
]  # fmt: skip


@pytest.mark.parametrize(("mode", "options", "max_attempts", "expected", "counts"), CASES)
def test_mode_semantics(
    run_plan: RunFn, mode: RunMode, options: dict[str, Any], max_attempts: int,
    expected: dict[str, str], counts: tuple[int, ...],
) -> None:  # fmt: skip
    result, events = run_plan(build_plan(DIAMOND), adapter_options=options, mode=mode,
                              max_attempts=max_attempts)  # fmt: skip
    s = result.summary
    assert outcomes(result) == expected
    assert (s.total, s.succeeded, s.failed, s.skipped, s.cancelled) == counts
    assert s.success is (s.succeeded == s.total)
    assert s.mode is mode
    assert [f.node_id for f in s.failures] == [k for k, v in expected.items() if v == "failed"]
    assert events.events[-1].type is EventType.RUNNER_COMPLETED
    assert result.interrupted is None


def test_retries_count_attempts_and_emit_will_retry(run_plan: RunFn) -> None:
    result, events = run_plan(
        build_plan({"a": []}),
        max_attempts=3,
        adapter_options={"failNodes": ["a"], "failAttempts": 2},
    )
    assert result.records[0].attempts == 3
    failed = [e for e in events.events if e.type is EventType.NODE_FAILED]
    assert [(e.attempt, e.will_retry) for e in failed] == [(1, True), (2, True)]


def test_skipped_events_carry_reason_and_checkpoints(run_plan: RunFn) -> None:
    store = MemoryCheckpointStore()
    _, events = run_plan(
        build_plan(DIAMOND),
        mode=RunMode.RESILIENT,
        store=store,
        adapter_options={"failNodes": ["b"]},
    )
    skipped = [e for e in events.events if e.type is EventType.NODE_SKIPPED]
    assert [(e.node_id, e.reason) for e in skipped] == [("d", "dependency b failed")]
    status = {k: v.status for k, v in store.load().items()}
    assert status == {
        "a": CheckpointStatus.SUCCESS,
        "b": CheckpointStatus.FAILED,
        "c": CheckpointStatus.SUCCESS,
        "d": CheckpointStatus.SKIPPED,
        "e": CheckpointStatus.SUCCESS,
    }


def test_dependency_order_is_respected_under_concurrency(run_plan: RunFn) -> None:
    chain = {f"n{i}": ([f"n{i - 1}"] if i else []) for i in range(8)}
    wide: dict[str, list[str]] = {f"w{i}": [] for i in range(8)}
    result, events = run_plan(
        build_plan({**chain, **wide}), concurrency=4, adapter_options={"latencyMs": 5}
    )
    assert result.summary.success
    finished = [e.node_id for e in events.events if e.type is EventType.NODE_SUCCEEDED]
    started = [e.node_id for e in events.events if e.type is EventType.NODE_STARTED]
    for i in range(1, 8):
        assert finished.index(f"n{i - 1}") < started.index(f"n{i}")


def test_skip_nodes_are_not_executed(run_plan: RunFn) -> None:
    result, _ = run_plan(build_plan({"a": [], "b": ["a"]}, skip=["a"]))
    assert outcomes(result) == {"b": "succeeded"}


@pytest.mark.parametrize("mode", list(RunMode))
def test_timeout_bounds_the_run_and_keeps_progress(run_plan: RunFn, mode: RunMode) -> None:
    store = MemoryCheckpointStore()
    plan = build_plan({f"n{i}": [] for i in range(50)})
    result, _ = run_plan(
        plan,
        mode=mode,
        store=store,
        timeout_ms=150,
        adapter_options={"latencyMs": 20},
        grace_ms=5000,
    )
    s = result.summary
    assert result.interrupted is not None and result.interrupted.startswith("timeout")
    assert not s.success and s.cancelled > 0 and s.failed == 0
    assert s.succeeded + s.cancelled == s.total
    done = {k for k, v in store.load().items() if v.status is CheckpointStatus.SUCCESS}
    assert done == {r.node_id for r in result.records if r.outcome is NodeOutcome.SUCCEEDED}


def test_abandoned_node_stays_running_after_grace(run_plan: RunFn) -> None:
    store = MemoryCheckpointStore()
    result, _ = run_plan(
        build_plan({"slow": []}),
        store=store,
        timeout_ms=50,
        grace_ms=0,
        adapter_options={"latencyMs": 60_000},
    )
    assert result.records[0].outcome is NodeOutcome.CANCELLED
    assert store.load()["slow"].status is CheckpointStatus.RUNNING


class SerialMock(MockAdapter):
    supports_concurrency = False


def max_parallel(events: list[Any]) -> int:
    running, peak = 0, 0
    for e in events:
        if e.type is EventType.NODE_STARTED:
            running += 1
            peak = max(peak, running)
        elif e.type in (EventType.NODE_SUCCEEDED, EventType.NODE_FAILED):
            running -= 1
    return peak


@pytest.mark.parametrize(("adapter_cls", "expected"), [(MockAdapter, 4), (SerialMock, 1)])
def test_concurrency_is_bounded_and_needs_adapter_consent(
    run_plan: RunFn, adapter_cls: type[MockAdapter], expected: int
) -> None:
    plan = build_plan({f"w{i}": [] for i in range(12)})
    result, events = run_plan(plan, concurrency=4, adapter=adapter_cls({"latencyMs": 30}))
    assert result.summary.success
    assert max_parallel(events.events) == expected


def test_adapter_exception_is_a_node_failure(run_plan: RunFn) -> None:
    class Broken(MockAdapter):
        def execute(self, node: Any, context: Any, state: Any) -> Any:
            raise ValueError("adapter bug")

    result, _ = run_plan(build_plan({"a": []}), adapter=Broken({}), max_attempts=2)
    record = result.records[0]
    assert record.outcome is NodeOutcome.FAILED and record.attempts == 2
    assert record.failure is not None and record.failure.code == "ADAPTER_ERROR"
    assert "adapter bug" in record.failure.message


class FullDiskStore(MemoryCheckpointStore):
    def save(self, checkpoint: Any) -> None:
        if checkpoint.status is CheckpointStatus.SUCCESS:
            raise OSError(28, "No space left on device")
        super().save(checkpoint)


@pytest.mark.parametrize("concurrency", [1, 3])
def test_a_checkpoint_write_error_ends_the_run_instead_of_hanging(
    run_plan: RunFn, concurrency: int
) -> None:
    with pytest.raises(OSError, match="No space left"):
        run_plan(build_plan(DIAMOND), store=FullDiskStore(), concurrency=concurrency)
