"""``apply`` as a library call (what the GitHub flow uses)."""

from __future__ import annotations

import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from averos_ci.config import load_config
from averos_ci.execute import (
    ApplyOutcome,
    CancelToken,
    CollectingListener,
    EventType,
    FileCheckpointStore,
    PlanMismatch,
)
from averos_ci.execute.adapters.mock import MockAdapter
from averos_ci.planning import apply
from tests.conftest import copy_example


@pytest.fixture
def config_path(tmp_path: Path) -> Path:
    return copy_example(tmp_path / "p", mock=True) / "averos.config.json"


def test_apply_returns_plan_summary_and_new_state(config_path: Path, tmp_path: Path) -> None:
    events = CollectingListener()
    out = apply(load_config(config_path), listeners=[events], adapter=MockAdapter({}),
                summary_json=tmp_path / "s.json")  # fmt: skip
    assert isinstance(out, ApplyOutcome) and out.summary.success and out.interrupted is None
    assert out.state is not None and out.state.serial == 1
    assert out.state.manifest_hash == out.plan.manifest_hash
    assert set(out.state.node_states) == {n.id for n in out.plan.nodes}
    assert events.events[-1].type is EventType.RUNNER_COMPLETED
    second = apply(load_config(config_path))
    assert second.summary.total == 0 and second.state == out.state


def test_cancelled_before_start_is_an_interrupted_outcome(config_path: Path) -> None:
    cancel = CancelToken()
    cancel.cancel("stop requested by the caller")
    cfg = load_config(config_path)
    out = apply(cfg, cancel=cancel)
    assert out.interrupted == "stop requested by the caller"
    assert out.summary.cancelled == out.summary.total and out.state is None
    assert FileCheckpointStore(cfg.checkpoint_path).read().plan_hash == out.plan.plan_hash
    assert apply(cfg, resume=True).summary.success  # nothing had started: nothing to keep


def test_failed_run_keeps_the_base_state(config_path: Path) -> None:
    cfg = load_config(config_path)
    first = apply(cfg)
    failing = MockAdapter({"failNodes": ["application:ToDoApp"]})
    manifest = cfg.manifest_path
    manifest.write_text(manifest.read_text().replace("A small ToDo", "A tiny ToDo"))
    out = apply(cfg, adapter=failing)
    assert not out.summary.success and out.state == first.state
    assert [f.node_id for f in out.summary.failures] == ["application:ToDoApp"]


def test_only_a_dry_run_makes_a_scratch_folder(
    config_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A real run leaves nothing in the temporary folder, even when killed (there is nothing
    to clean up); a dry run's scratch logs folder is made and removed."""
    scratch_root = tmp_path / "tmp"
    scratch_root.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch_root))
    made: list[str] = []
    real = tempfile.TemporaryDirectory

    def spy(*args: Any, **kwargs: Any) -> tempfile.TemporaryDirectory[str]:
        made.append(str(kwargs.get("prefix")))
        return real(*args, **kwargs)

    monkeypatch.setattr(tempfile, "TemporaryDirectory", spy)
    dry = apply(load_config(config_path), dry_run=True)
    assert dry.summary.total > 0 and made == ["averos-ci-dry-run-"]
    assert list(scratch_root.iterdir()) == []
    made.clear()
    out = apply(load_config(config_path))
    assert out.summary.success and out.summary.total > 0 and made == []
    assert list(scratch_root.iterdir()) == []


def test_only_the_expected_plan_is_executed(config_path: Path) -> None:
    cfg = load_config(config_path)
    events = CollectingListener()
    with pytest.raises(PlanMismatch) as info:
        apply(cfg, listeners=[events], expected_plan_hash="0" * 64)
    assert "not the expected (approved) plan 000000000000" in str(info.value)
    assert events.events == [] and not cfg.state_path.exists()
    # the execution settings are part of the plan: another one is another plan
    approved = apply(cfg, dry_run=True).plan.plan_hash
    other = replace(cfg, development=not cfg.development)
    with pytest.raises(PlanMismatch):
        apply(other, expected_plan_hash=approved)
    assert apply(cfg, expected_plan_hash=approved).summary.success
