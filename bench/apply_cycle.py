"""First apply vs incremental apply with the real angular-schematics adapter (P7 figures).

Each round, in a fresh folder:
1. first apply: `averos-ci run` of the ToDo example (bootstrap = copy of the cached template,
   then every schematic) — records the state with its fingerprint;
2. incremental apply: the manifest gains one member; `averos-ci run` plans against the state,
   checks the workspace for drift and runs the one new node;
3. incremental apply on a checkout: the same, on a copy of the workspace without
   `node_modules` (what a CI job checks out): the adapter links them from the template.

Prints the median of each over the rounds and the ratio first / incremental. Target
(bench/_targets.py; exit 1 when it misses): the incremental apply, in both modes.

    python bench/apply_cycle.py [--runs 3] [--quick] [--targets-scale X]

The template is built on first use (minutes); set AVEROS_CI_CACHE_DIR to choose the cache.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _figures import Figures, add_arguments

from averos_ci.execute.adapters.angular.testing import template_workspace

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "examples" / "todoapp" / "todoapp.manifest.yaml"
V2 = REPO / "tests" / "scenarios" / "angular" / "data" / "todoapp.v2.manifest.yaml"
CLI = [sys.executable, "-c", "from averos_ci.cli import main; main()"]
MEMBER = "      - memberNature: simple\n        ename: ToDoTask\n        mname: priority\n"


def v2_manifest() -> str:
    """The example plus one member (taken from the v2 scenario manifest)."""
    text = EXAMPLE.read_text(encoding="utf-8")
    full = V2.read_text(encoding="utf-8")
    start = full.index(MEMBER)
    block = full[start : full.index("\n", start + len(MEMBER)) + 1]
    anchor = "      - memberNature: simple\n        ename: ToDoTask\n"
    return text.replace(anchor, block + anchor, 1)


def run(project: Path, label: str) -> tuple[float, int]:
    started = time.perf_counter()
    proc = subprocess.run(
        [*CLI, "run", "--config", str(project / "averos.config.json")],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "NG_CLI_ANALYTICS": "false"},
    )
    elapsed = time.perf_counter() - started
    if proc.returncode != 0:
        raise SystemExit(
            f"{label}: exit {proc.returncode}\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}"
        )
    summary = json.loads((project / ".averos/logs/summary.json").read_text(encoding="utf-8"))
    return elapsed, int(summary["succeeded"])


def one_round(base: Path) -> tuple[float, float, float, int, int]:
    project = base / "p"
    project.mkdir()
    shutil.copy(EXAMPLE, project / "todoapp.manifest.yaml")
    (project / "averos.config.json").write_text(
        json.dumps(
            {
                "manifestPath": "todoapp.manifest.yaml",
                "workspaceRoot": "workspace",
                "adapterOptions": {"templateCache": True},
            }
        ),
        encoding="utf-8",
    )
    first, first_nodes = run(project, "first apply")
    checkout = base / "checkout"
    shutil.copytree(project, checkout, symlinks=True, ignore=shutil.ignore_patterns("node_modules"))
    for p in (project, checkout):
        (p / "todoapp.manifest.yaml").write_text(v2_manifest(), encoding="utf-8")
    incremental, inc_nodes = run(project, "incremental apply")
    from_checkout, _ = run(checkout, "incremental apply on a checkout")
    return first, incremental, from_checkout, first_nodes, inc_nodes


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="one round")
    add_arguments(parser)
    args = parser.parse_args()
    rounds = 1 if args.quick else max(1, args.runs)
    figures = Figures("apply_cycle", quick=args.quick, scale=args.targets_scale)
    if shutil.which("npm") is None:
        return figures.cannot_measure("npm is not on PATH")
    print(f"template: {template_workspace()}")
    results = []
    for i in range(rounds):
        with tempfile.TemporaryDirectory(prefix="averos-bench-apply-") as tmp:
            results.append(one_round(Path(tmp)))
        f, inc, chk, n1, n2 = results[-1]
        print(f"round {i + 1}: first {f:.2f} s ({n1} nodes), incremental {inc:.2f} s "
              f"({n2} node), incremental on a checkout {chk:.2f} s")  # fmt: skip
    first = statistics.median(r[0] for r in results)
    incremental = statistics.median(r[1] for r in results)
    checkout = statistics.median(r[2] for r in results)
    print(f"median of {rounds}: first apply {first:.2f} s; incremental apply {incremental:.2f} s; "
          f"incremental on a checkout (node_modules linked) {checkout:.2f} s")  # fmt: skip
    print(f"first / incremental = {first / incremental:.1f}x")
    figures.check("apply_cycle.incremental_s", incremental)
    return figures.exit_code()


if __name__ == "__main__":
    raise SystemExit(main())
