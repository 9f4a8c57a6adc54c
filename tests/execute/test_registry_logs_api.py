"""Adapter registry, per-node log names, and the guarded public API."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import averos_ci.execute as execute
from averos_ci.errors import ConfigError, InputError
from averos_ci.execute import ExecutionAdapter, available_adapters, get_adapter
from averos_ci.execute.adapters.mock import MockAdapter
from averos_ci.execute.logs import node_log_name

PUBLIC = {
    "AdapterFactory", "ApplyOutcome", "CancelToken", "CheckpointLog", "CheckpointStatus",
    "CheckpointStore", "CollectingListener", "EventType", "ExecutionAdapter",
    "ExecutionCheckpoint", "ExecutionContext", "ExecutionFailure", "ExecutionResult",
    "ExecutionState", "FileCheckpointStore", "JsonlEventLog", "MemoryCheckpointStore",
    "NodeFailed", "NodeFailureSummary", "NodeOutcome", "NodeReady", "NodeRecord", "NodeSkipped",
    "NodeStarted", "NodeSucceeded", "PlanMismatch", "PlanNotApplicable", "RunMode", "RunResult",
    "Runner",
    "RunnerCompleted", "RunnerEvent", "RunnerEventListener", "RunnerOptions", "RunnerSummary",
    "RuntimeMutation", "available_adapters", "execute_planned", "get_adapter", "parse_event",
}  # fmt: skip


def test_public_api_is_listed_and_importable() -> None:
    assert set(execute.__all__) == PUBLIC
    for name in execute.__all__:
        assert getattr(execute, name) is not None


def test_registry_builds_the_mock_adapter_from_options() -> None:
    assert "mock" in available_adapters()
    adapter = get_adapter("mock", {"latencyMs": 1, "failNodes": ["x"], "failAttempts": 2})
    assert isinstance(adapter, MockAdapter) and isinstance(adapter, ExecutionAdapter)
    assert adapter.fail_nodes == {"x"} and adapter.fail_attempts == 2


def test_an_adapter_installed_on_a_new_path_is_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The registry reads the installed distributions once per ``sys.path``: one installed
    where the path now leads is found, and gone again once the path no longer leads there."""
    assert "mock" in available_adapters()  # read (and kept) for today's path
    info = tmp_path / "acme_adapter-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: acme-adapter\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        "[averos_ci.adapters]\nacme = averos_ci.execute.adapters.mock:MockAdapter\n"
    )
    with monkeypatch.context() as mp:
        mp.syspath_prepend(str(tmp_path))
        assert "acme" in available_adapters()
        assert isinstance(get_adapter("acme"), MockAdapter)
    assert "acme" not in available_adapters()


def test_unknown_adapter_lists_the_available_ones() -> None:
    with pytest.raises(InputError) as info:
        get_adapter("nope")
    assert "mock" in str(info.value)


@pytest.mark.parametrize(
    "options", [{"latencyMs": -1}, {"failNodes": "a"}, {"failAttempts": True}, {"x": 1}]
)
def test_mock_options_are_checked(options: dict[str, object]) -> None:
    with pytest.raises(ConfigError):
        MockAdapter(options)


@given(st.lists(st.text(min_size=1, max_size=200), min_size=2, max_size=20, unique=True))
def test_node_log_names_are_safe_and_collision_free(ids: list[str]) -> None:
    names = [node_log_name(i) for i in ids]
    assert len({n.casefold() for n in names}) == len(ids)
    for name in names:
        assert set(name) <= set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")
        assert len(name) < 120 and not name.startswith(".") and name.endswith(".log")


def test_node_log_name_is_readable() -> None:
    name = node_log_name("simple-field:ToDoTask:status")
    assert name.startswith("simple-field_ToDoTask_status.") and Path(name).suffix == ".log"
