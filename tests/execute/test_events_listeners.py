"""Events: typed union, JSON-lines log round trip, listener isolation, config listeners."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from averos_ci.errors import ConfigError
from averos_ci.execute import (
    EventType,
    JsonlEventLog,
    RunMode,
    parse_event,
)
from averos_ci.execute.listeners import load_listeners
from tests.execute.engine_plans import RunFn, build_plan

PLAN = {"a": [], "b": ["a"], "c": ["b"], "d": []}


class Exploding:
    def __init__(self) -> None:
        self.calls = 0

    def on_event(self, event: Any) -> None:
        self.calls += 1
        raise RuntimeError("listener bug")


@pytest.mark.parametrize("mode", list(RunMode))
def test_a_raising_listener_does_not_change_the_outcome(
    run_plan: RunFn, mode: RunMode, capsys: pytest.CaptureFixture[str]
) -> None:
    options = {"failNodes": ["b"]}
    baseline, base_events = run_plan(build_plan(PLAN), mode=mode, adapter_options=options)
    exploding = Exploding()
    result, events = run_plan(build_plan(PLAN), mode=mode, adapter_options=options,
                              listeners=[exploding])  # fmt: skip
    assert result.summary.model_copy(update={"duration_ms": 0}) == (
        baseline.summary.model_copy(update={"duration_ms": 0}))  # fmt: skip
    assert [r.outcome for r in result.records] == [r.outcome for r in baseline.records]
    assert [e.type for e in events.events] == [e.type for e in base_events.events]
    assert exploding.calls == len(events.events)
    assert capsys.readouterr().err.count("listener bug") == 1  # reported once, not per event


def test_event_fields_and_jsonl_round_trip(run_plan: RunFn, tmp_path: Path) -> None:
    log = JsonlEventLog(tmp_path / "events.jsonl")
    result, events = run_plan(build_plan(PLAN), mode=RunMode.RESILIENT, listeners=[log],
                              adapter_options={"failNodes": ["b"]})  # fmt: skip
    log.close()
    lines = (tmp_path / "events.jsonl").read_text().splitlines()
    parsed = [parse_event(line) for line in lines]
    assert parsed == events.events
    kinds = {e.type for e in parsed}
    assert kinds == set(EventType)
    assert all(e.run_id == result.run_id for e in parsed)
    failed = next(e for e in parsed if e.type is EventType.NODE_FAILED)
    assert failed.node_id == "b" and failed.failure.code == "MOCK_FAILURE"
    assert failed.attempt == 1 and failed.duration_ms >= 0
    skipped = next(e for e in parsed if e.type is EventType.NODE_SKIPPED)
    assert skipped.reason == "dependency b failed"
    completed = parsed[-1]
    assert completed.type is EventType.RUNNER_COMPLETED
    assert completed.summary == result.summary
    failed_line = next(line for line in lines if '"NODE_FAILED"' in line)
    assert '"nodeId":"b"' in failed_line  # camelCase on the wire
    assert "node_id" not in "".join(lines) and "run_id" not in "".join(lines)


def test_event_log_isolates_a_torn_last_line(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    path.write_text('{"type":"NODE_READY","runId":"r"')  # a crash cut this event
    log = JsonlEventLog(path)
    log.close()
    assert path.read_text().endswith("\n")


def test_listeners_from_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "my_listeners.py").write_text(
        "class Counter:\n"
        "    def __init__(self):\n        self.n = 0\n"
        "    def on_event(self, event):\n        self.n += 1\n"
        "instance = Counter()\n"
    )  # fmt: skip
    monkeypatch.syspath_prepend(str(tmp_path))
    factory, instance = load_listeners(["my_listeners:Counter", "my_listeners:instance"])
    assert type(factory).__name__ == "Counter" and instance is sys.modules["my_listeners"].instance
    for bad in ["no_colon", "my_listeners:Missing", "not_a_module_xyz:thing"]:
        with pytest.raises(ConfigError):
            load_listeners([bad])
