"""Engine overhead: 10,000 no-op nodes through the mock adapter (no latency).

Prints, as medians over several runs:
  * per-node overhead with the FileCheckpointStore and with the MemoryCheckpointStore,
  * the device floor: one durable record (pwrite + fdatasync) on the same disk,
  * the time to decide what to run when resuming after 9,999 completed nodes
    (from ``Runner.run`` to the start of the one remaining node).
Each run measures the memory store and the file store one after the other, timing inside the
file run the journal's own fdatasync calls (the device's share: one durable record per node is
the design); the ratio is taken within a run (paired), then the median of the runs. Targets
(bench/_targets.py; exit 1 when one misses): the file run without its fdatasync time
<= 2x the memory run and <= 300 us/node; resume decision <= 50 us per completed node (0.5 s
after 9,999).

    python bench/engine_overhead.py [--nodes 10000] [--runs 5] [--quick] [--targets-scale X]

--quick (what CI runs): 1,000 nodes, 5 runs.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from _figures import Figures, add_arguments

from averos_ci.execute import (
    CheckpointStatus,
    CheckpointStore,
    EventType,
    ExecutionCheckpoint,
    FileCheckpointStore,
    MemoryCheckpointStore,
    Runner,
    RunnerOptions,
)
from averos_ci.execute import checkpoints as checkpoint_journal
from averos_ci.execute.adapters.mock import MockAdapter
from averos_ci.plan.model import Action, ExecutionPlan, Phase, PlanCounts, PlanDiff, PlanNode

PLAN_HASH = "0" * 64


def make_plan(count: int) -> ExecutionPlan:
    # 100 entities, each with fields depending on it: a realistic, wide DAG
    nodes = []
    for i in range(count):
        entity = f"entity:E{i // 100}"
        if i % 100 == 0:
            nodes.append(
                PlanNode(
                    id=entity,
                    phase=Phase.ENTITY,
                    command="averos-entity",
                    action=Action.CREATE,
                    args={"name": f"E{i // 100}"},
                )
            )
        else:
            nodes.append(
                PlanNode(
                    id=f"simple-field:E{i // 100}:m{i}",
                    phase=Phase.SIMPLE_FIELD,
                    command="add-simple-member",
                    action=Action.CREATE,
                    depends_on=(entity,),
                    args={"mname": f"m{i}"},
                )
            )
    return ExecutionPlan(plan_hash=PLAN_HASH, manifest_hash="m" * 64, base_state_hash="b" * 64,
                         application_name="Bench", applicable=True,
                         counts=PlanCounts(create=count, update=0, skip=0, conflicts=0, remove=0),
                         diff=PlanDiff(), nodes=tuple(nodes))  # fmt: skip


class SyncClock:
    """The time the journal spends in its own ``fdatasync`` calls, timed around each call the
    store makes: the device's share of the file run, taken from that very run (a separate probe
    of the disk, on a shared machine, differed from the run by more than the engine's cost)."""

    def __init__(self) -> None:
        self.spent = 0.0
        self.calls = 0
        self._real = checkpoint_journal._datasync

    def __enter__(self) -> SyncClock:
        def timed(fd: int) -> None:
            started = time.perf_counter()
            try:
                self._real(fd)
            finally:
                self.spent += time.perf_counter() - started
                self.calls += 1

        checkpoint_journal._datasync = timed
        return self

    def __exit__(self, *_: object) -> None:
        checkpoint_journal._datasync = self._real


class FirstStart:
    def __init__(self) -> None:
        self.at: float | None = None

    def on_event(self, event: Any) -> None:
        if event.type is EventType.NODE_STARTED and self.at is None:
            self.at = time.perf_counter()


def run_once(plan: ExecutionPlan, store: CheckpointStore, root: Path, *, resume: bool = False,
             listener: FirstStart | None = None) -> float:  # fmt: skip
    runner = Runner(plan=plan, adapter=MockAdapter({}), checkpoints=store,
                    listeners=[listener] if listener else [],
                    options=RunnerOptions(workspace_root=root, logs_dir=root / "logs"))  # fmt: skip
    started = time.perf_counter()
    result = runner.run(resume=resume)
    elapsed = time.perf_counter() - started
    store.close()
    assert result.summary.success, result.summary
    if listener is not None:
        assert listener.at is not None
        return listener.at - started
    return elapsed


def fdatasync_floor(directory: Path, count: int = 500) -> float:
    """The device's cost of one durable record (pwrite into pre-zeroed space + fdatasync)."""
    path = directory / "probe"
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_TRUNC)
    try:
        os.write(fd, bytes(200 * count))
        os.fsync(fd)
        started = time.perf_counter()
        for i in range(count):
            os.pwrite(fd, b"x" * 199 + b"\n", i * 200)
            os.fdatasync(fd)
        return (time.perf_counter() - started) / count * 1e6
    finally:
        os.close(fd)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=None, help="10,000 (quick: 1,000)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="1,000 nodes, 5 runs")
    add_arguments(parser)
    args = parser.parse_args()
    args.nodes = args.nodes or (1000 if args.quick else 10_000)
    figures = Figures("engine_overhead", quick=args.quick, scale=args.targets_scale)
    plan = make_plan(args.nodes)
    per_node: dict[str, list[float]] = {"memory": [], "file": []}
    synced: list[float] = []  # us/node the file run spent in its own fdatasync calls
    resume: list[float] = []
    floor: list[float] = []
    for _ in range(args.runs):
        with tempfile.TemporaryDirectory(dir=Path.cwd()) as tmp:
            floor.append(fdatasync_floor(Path(tmp)))
        for kind in ("memory", "file"):
            with tempfile.TemporaryDirectory(dir=Path.cwd()) as tmp:
                root = Path(tmp)
                store: CheckpointStore = (
                    MemoryCheckpointStore()
                    if kind == "memory"
                    else FileCheckpointStore(root / "checkpoints.json")
                )
                with SyncClock() as clock:
                    per_node[kind].append(run_once(plan, store, root) / args.nodes * 1e6)
                if kind == "file":
                    if clock.calls < args.nodes:  # the journal no longer syncs through _datasync
                        raise SystemExit(f"the file run made {clock.calls} timed fdatasync calls")
                    synced.append(clock.spent / args.nodes * 1e6)
        with tempfile.TemporaryDirectory(dir=Path.cwd()) as tmp:
            root = Path(tmp)
            path = root / "checkpoints.json"
            seed = FileCheckpointStore(path)
            seed.begin(plan_hash=PLAN_HASH, run_id="earlier")
            for node in plan.nodes[:-1]:
                seed.save(
                    ExecutionCheckpoint(
                        node_id=node.id,
                        status=CheckpointStatus.SUCCESS,
                        updated_at="2026-01-01T00:00:00.000Z",
                    )
                )
            seed.close()
            resume.append(run_once(plan, FileCheckpointStore(path), root, resume=True,
                                   listener=FirstStart()))  # fmt: skip
    mem = statistics.median(per_node["memory"])
    file = statistics.median(per_node["file"])
    sync = statistics.median(floor)
    decide = statistics.median(resume)
    above = [f - s for f, s in zip(per_node["file"], synced, strict=True)]
    ratios = [a / m for a, m in zip(above, per_node["memory"], strict=True)]
    print(f"nodes: {args.nodes}, runs: {args.runs} (median)")
    print(
        f"  memory-backed checkpoints: {mem:8.1f} us/node   runs: "
        + ", ".join(f"{v:.0f}" for v in per_node["memory"])
    )
    print(
        f"  file-backed checkpoints:   {file:8.1f} us/node   runs: "
        + ", ".join(f"{v:.0f}" for v in per_node["file"])
    )
    print(
        f"  device floor (1 fdatasync): {sync:7.1f} us        runs: "
        + ", ".join(f"{v:.0f}" for v in floor)
    )
    print(
        f"  of which in fdatasync:     {statistics.median(synced):8.1f} us/node   runs: "
        + ", ".join(f"{v:.0f}" for v in synced)
    )
    print(f"  file / memory, sync included: {file / mem:7.2f}  (the target before issue 39)")
    print(f"  resume decision after {args.nodes - 1} done: {decide * 1000:.1f} ms")
    figures.check("engine_overhead.file_us_over_floor", statistics.median(above))
    figures.check("engine_overhead.file_memory_ratio", statistics.median(ratios))
    figures.check("engine_overhead.resume_us_per_done", decide / (args.nodes - 1) * 1e6)
    return figures.exit_code()


if __name__ == "__main__":
    raise SystemExit(main())
