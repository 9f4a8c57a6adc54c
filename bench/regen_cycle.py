"""Regenerate and merge on the golden ToDo manifest (283 nodes), template warm (issue 21).

1. first apply of tests/data/averos/todoapp-manifest.json (not timed: the applied state and its
   pristine tree);
2. the manifest gains one member; ``plan`` with its code patch is timed (the planning service,
   as `averos-ci plan` calls it): a clean generation of the new manifest in a scratch workspace
   and the three-way merge into the workspace, in memory;
3. ``run`` of that plan (``expected_plan_hash``) is timed: the apply generates the new
   manifest's tree again (the pristine store never stands in for it; it only serves the base
   tree, and only when its hashes match the applied state's ``state.json``), writes the merge,
   opens the workspace (node_modules linked) and records the state.

Targets (2-core machine; bench/_targets.py, exit 1 when one misses): plan <= 15 s,
apply <= 10 s, in both modes (--quick: one round).

    python bench/regen_cycle.py [--runs 3] [--quick] [--targets-scale X]

The template is built on first use (minutes); set AVEROS_CI_CACHE_DIR to choose the cache.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from _figures import Figures, add_arguments

from averos_ci.config import RunConfig, load_config
from averos_ci.execute.adapters.angular.testing import template_workspace
from averos_ci.planning import FileState, Planned, apply, plan_project

REPO = Path(__file__).resolve().parents[1]
GOLDEN = REPO / "tests" / "data" / "averos" / "todoapp-manifest.json"


def _one_member_more(doc: dict[str, Any]) -> dict[str, Any]:
    entity = doc["project"]["averosApplication"]["entities"][0]
    ename = entity["members"][0]["ename"]
    entity["members"].append(
        {"memberNature": "simple", "mname": "benchNote", "memberType": "string", "ename": ename}
    )
    return doc


def _plan(cfg: RunConfig) -> tuple[Planned, float]:
    """The plan with its code patch, as `averos-ci plan` makes it: (planned, seconds)."""
    started = time.perf_counter()
    planned = plan_project(cfg, FileState(cfg.state_path), code_patch="always", fatal=True)
    return planned, time.perf_counter() - started


def one_round(base: Path) -> tuple[float, float, int, int]:
    project = base / "p"
    project.mkdir()
    doc = json.loads(GOLDEN.read_text(encoding="utf-8"))
    (project / "app.manifest.json").write_text(json.dumps(doc), encoding="utf-8")
    (project / "averos.config.json").write_text(
        json.dumps(
            {
                "manifestPath": "app.manifest.json",
                "workspaceRoot": "workspace",
                "adapterOptions": {"templateCache": True},
            }
        ),
        encoding="utf-8",
    )
    cfg = load_config(project / "averos.config.json")
    first = apply(cfg)
    if not first.summary.success:
        raise SystemExit(f"first apply failed: {first.summary.failures[:3]}")
    (project / "app.manifest.json").write_text(json.dumps(_one_member_more(doc)), encoding="utf-8")
    planned, plan_s = _plan(cfg)
    patch = planned.patch
    if patch is None or patch.conflicts or patch.generator_failed:
        raise SystemExit(f"the one-member change has no clean code patch: {patch}")
    started = time.perf_counter()
    outcome = apply(cfg, expected_plan_hash=planned.plan.plan_hash)
    apply_s = time.perf_counter() - started
    if not outcome.summary.success:
        raise SystemExit(f"apply failed: {outcome.summary.failures[:3]}")
    return plan_s, apply_s, len(planned.plan.nodes), len(patch.files)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="one round")
    add_arguments(parser)
    args = parser.parse_args()
    rounds = 1 if args.quick else max(1, args.runs)
    figures = Figures("regen_cycle", quick=args.quick, scale=args.targets_scale)
    if shutil.which("npm") is None:
        return figures.cannot_measure("npm is not on PATH")
    print(f"template: {template_workspace()}")
    results = []
    for i in range(rounds):
        with tempfile.TemporaryDirectory(prefix="averos-bench-regen-") as tmp:
            results.append(one_round(Path(tmp)))
        plan_s, apply_s, nodes, files = results[-1]
        print(f"round {i + 1}: plan with patch {plan_s:.2f} s ({nodes} nodes, {files} file(s) "
              f"changed), apply {apply_s:.2f} s")  # fmt: skip
    plan_s = statistics.median(r[0] for r in results)
    apply_s = statistics.median(r[1] for r in results)
    print(f"median of {rounds}: plan {plan_s:.2f} s; apply {apply_s:.2f} s")
    figures.check("regen_cycle.plan_s", plan_s)
    figures.check("regen_cycle.apply_s", apply_s)
    return figures.exit_code()


if __name__ == "__main__":
    raise SystemExit(main())
