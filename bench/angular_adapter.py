"""angular-schematics: per-node `ng generate` (how Averos runs a plan) vs the batched driver.

Runs the ToDo example's plan (examples/todoapp) twice, each time on a fresh copy of the same
cached template workspace (the one-time npm install is excluded): once with
``runner: per-process`` (one `npx ng generate` per node), once with the default batched
Node driver (median of --batched-runs runs, default 3: it is cheap and the machine may be
shared). Prints both wall times, their ratio and checks that both runs produced the same
workspace, file for file. Target (bench/_targets.py; exit 1 when it misses): >= 10x on the
ToDo plan; quick: the tolerance of a 3-node plan.

    python bench/angular_adapter.py [--manifest examples/todoapp/todoapp.manifest.yaml] [--quick]
                                    [--targets-scale X]

--quick (what CI runs): a tiny manifest (one entity, two fields), 3 batched runs.

The template is built on first use (minutes); set AVEROS_CI_CACHE_DIR to choose the cache.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from _figures import Figures, add_arguments

from averos_ci.execute.adapters.angular import AngularSchematicsAdapter
from averos_ci.execute.adapters.angular.testing import (
    context,
    fresh_workspace,
    template_workspace,
    tree_digest,
)
from averos_ci.execute.contracts import ExecutionState
from averos_ci.plan import compute_plan
from averos_ci.plan.model import PlanNode

REPO = Path(__file__).resolve().parents[1]
TINY = """\
applicationName: ToDoApp
defaultLanguageCode: en
entities:
  - name: ToDoArea
    sname: ToDoAreaService
    members:
      - {memberNature: simple, ename: ToDoArea, mname: areaId, memberType: string, memberTag: ID}
      - {memberNature: simple, ename: ToDoArea, mname: title, memberType: string}
serviceConfigurations:
  - {type: service, name: ToDoAreaServiceConfiguration, id: ToDoAreaService, apiHost: 127.0.0.1,
     apiPort: 3333, apiProtocol: http, apiEndPoint: /api/todoareas, apiHTTPQueryBuilder: mongodb}
"""


def run_plan(runner: str, nodes: list[PlanNode], workspace: Path) -> tuple[float, int, int]:
    """Wall time of every node after the application node (the workspace exists already)."""
    adapter = AngularSchematicsAdapter({"runner": runner})
    adapter.preflight(context(workspace))
    adapter.open(context(workspace))
    state = ExecutionState(cwd=workspace)
    failed = schematic_nodes = 0
    try:
        bootstrap, rest = nodes[0], nodes[1:]
        adapter.execute(bootstrap, context(workspace, bootstrap.id), state)
        started = time.perf_counter()
        for node in rest:
            result = adapter.execute(node, context(workspace, node.id), state)
            failed += not result.success
            schematic_nodes += node.command not in {
                "field-mapping",
                "service-configuration",
                "authentication-provider",
                "http-auth-config",
            }
        elapsed = time.perf_counter() - started
    finally:
        adapter.close()
    return elapsed, schematic_nodes, failed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--manifest", type=Path, default=REPO / "examples/todoapp/todoapp.manifest.yaml"
    )
    parser.add_argument(
        "--batched-runs", type=int, default=3, help="median of this many batched runs (cheap)"
    )
    parser.add_argument("--quick", action="store_true", help="tiny manifest, 3 batched runs")
    add_arguments(parser)
    args = parser.parse_args()
    figures = Figures("angular_adapter", quick=args.quick, scale=args.targets_scale)
    if shutil.which("npm") is None:
        return figures.cannot_measure("npm is not on PATH")
    custom = args.manifest != parser.get_default("manifest")
    quick_dir = tempfile.TemporaryDirectory(prefix="averos-bench-quick-")
    if args.quick:
        args.manifest = Path(quick_dir.name) / "tiny.manifest.yaml"
        args.manifest.write_text(TINY, encoding="utf-8")
    plan = compute_plan(manifest_path=args.manifest, state=None).plan
    quick_dir.cleanup()
    nodes = plan.executable_nodes()
    assert nodes[0].command == "ng-add"
    template = template_workspace(
        str(nodes[0].args["applicationName"]), str(nodes[0].args.get("defaultLanguageCode") or "en")
    )
    print(f"template workspace: {template}")
    print(f"plan: {len(nodes)} nodes ({len(nodes) - 1} after the application node)")
    with tempfile.TemporaryDirectory(prefix="averos-bench-") as tmp:
        results = {}
        digests = {}
        failures = 0
        for runner, runs in (("per-process", 1), ("batched", args.batched_runs)):
            times = []
            for i in range(runs):
                ws = fresh_workspace(
                    template, Path(tmp) / f"{runner}-{i}", shared_node_modules=True
                )
                elapsed, schematic_nodes, failed = run_plan(runner, nodes, ws)
                times.append(elapsed)
                failures += failed
                digests[runner] = tree_digest(ws)
            elapsed = statistics.median(times)
            results[runner] = elapsed
            spread = f", runs: {', '.join(f'{t:.2f}' for t in times)}" if runs > 1 else ""
            print(
                f"{runner:>12}: {elapsed:8.2f} s  ({schematic_nodes} schematic nodes, "
                f"{elapsed / max(schematic_nodes, 1) * 1000:7.1f} ms/node, {failed} failed{spread})"
            )
    ratio = results["per-process"] / results["batched"]
    same = digests["per-process"] == digests["batched"]
    print(f"{'ratio':>12}: {ratio:8.1f}x")
    print(f"{'same files':>12}: {'yes' if same else 'NO'}")
    if failures:
        # Two runners failing the same nodes still write the same files: a failed node is a
        # broken bench, whatever the comparison says.
        print(f"{failures} node(s) failed: the bench is broken", file=sys.stderr)
    if not same or failures:
        return 1
    if custom and not args.quick:
        print("(--manifest: not the ToDo plan, no verdict)")
        return 0
    figures.check("angular_adapter.batched_ratio", ratio)
    return figures.exit_code()


if __name__ == "__main__":
    sys.exit(main())
