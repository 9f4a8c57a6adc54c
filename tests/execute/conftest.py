"""Plans built by hand (no manifest needed) and a runner wired to the mock adapter."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from averos_ci.execute import (
    CancelToken,
    CheckpointStore,
    CollectingListener,
    MemoryCheckpointStore,
    Runner,
    RunnerEventListener,
    RunnerOptions,
    RunResult,
)
from averos_ci.execute.adapters.mock import MockAdapter
from averos_ci.plan.model import ExecutionPlan


@pytest.fixture
def run_plan(tmp_path: Path) -> Callable[..., tuple[RunResult, CollectingListener]]:
    def run(
        plan: ExecutionPlan,
        *,
        adapter_options: dict[str, Any] | None = None,
        store: CheckpointStore | None = None,
        resume: bool = False,
        listeners: Sequence[RunnerEventListener] = (),
        cancel: CancelToken | None = None,
        adapter: Any = None,
        **options: Any,
    ) -> tuple[RunResult, CollectingListener]:
        events = CollectingListener()
        options.setdefault("backoff_ms", 1)
        runner = Runner(
            plan=plan, adapter=adapter or MockAdapter(adapter_options or {}),
            checkpoints=store or MemoryCheckpointStore(), listeners=[*listeners, events],
            cancel=cancel,
            options=RunnerOptions(workspace_root=tmp_path, logs_dir=tmp_path / "logs", **options),
        )  # fmt: skip
        return runner.run(resume=resume), events

    return run
