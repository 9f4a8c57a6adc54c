"""Node-module bridge overhead: the same no-op plan through the mock adapter and through a
JavaScript adapter module (``node-module``: one Node host, JSON lines over stdio).

Prints, as medians over several runs, the per-node time of each and their difference: the
cost of the bridge per node (target: <= 2 ms/node over the mock). The host's start-up (once
per run) is measured separately and not spread over the nodes.

Target (bench/_targets.py; exit 1 when it misses): the median of the per-run differences.

    python bench/node_adapter.py [--nodes 2000] [--runs 5] [--quick] [--targets-scale X]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from averos_ci.execute import EventType, MemoryCheckpointStore, Runner, RunnerOptions
from averos_ci.execute.adapters.mock import MockAdapter
from averos_ci.execute.adapters.node_module import NodeModuleAdapter
from averos_ci.execute.contracts import ExecutionAdapter

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _figures import Figures, add_arguments
from engine_overhead import make_plan

NOOP_MODULE = """\
export default class Noop {
  async execute(node, context, state) {
    return { success: true, durationMs: 0 };
  }
}
"""


class FirstStart:
    """When the first node started: what precedes it (host start-up) is not per-node cost."""

    def __init__(self) -> None:
        self.at: float | None = None

    def on_event(self, event: Any) -> None:
        if event.type is EventType.NODE_STARTED and self.at is None:
            self.at = time.perf_counter()


def run_once(adapter: ExecutionAdapter, nodes: int, root: Path) -> tuple[float, float]:
    """(per-node seconds after the first node started, seconds before it)."""
    plan = make_plan(nodes)
    first = FirstStart()
    runner = Runner(
        plan=plan,
        adapter=adapter,
        checkpoints=MemoryCheckpointStore(),
        listeners=[first],
        options=RunnerOptions(workspace_root=root / "ws", logs_dir=root / "logs"),
    )
    started = time.perf_counter()
    result = runner.run()
    ended = time.perf_counter()
    assert result.summary.success, result.summary.failures[:1]
    assert first.at is not None
    return (ended - first.at) / nodes, first.at - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="300 nodes, 3 runs")
    add_arguments(parser)
    args = parser.parse_args()
    if args.quick:
        args.nodes, args.runs = 300, 3
    figures = Figures("node_adapter", quick=args.quick, scale=args.targets_scale)
    if shutil.which("node") is None:
        return figures.cannot_measure("node is not on PATH")
    mock: list[float] = []
    bridge: list[float] = []
    startup: list[float] = []
    for _ in range(args.runs):
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            (root / "noop.mjs").write_text(NOOP_MODULE)
            per_node, _ = run_once(MockAdapter({}), args.nodes, root)
            mock.append(per_node * 1000)
            adapter = NodeModuleAdapter({"module": "noop.mjs", "configDir": str(root)})
            per_node, before = run_once(adapter, args.nodes, root)
            bridge.append(per_node * 1000)
            startup.append(before * 1000)
    m, b = statistics.median(mock), statistics.median(bridge)
    print(f"nodes: {args.nodes}, runs: {args.runs} (median)")
    print(f"  mock adapter:        {m:7.3f} ms/node   runs: " + ", ".join(f"{v:.3f}" for v in mock))
    print(
        f"  node-module bridge:  {b:7.3f} ms/node   runs: " + ", ".join(f"{v:.3f}" for v in bridge)
    )
    print(f"  host start-up:       {statistics.median(startup):7.1f} ms (once per run)")
    diff = statistics.median(x - y for x, y in zip(bridge, mock, strict=True))
    print(f"  bridge - mock:       {diff:7.3f} ms/node (median of the per-run differences)")
    figures.check("node_adapter.bridge_ms", diff)
    return figures.exit_code()


if __name__ == "__main__":
    raise SystemExit(main())
