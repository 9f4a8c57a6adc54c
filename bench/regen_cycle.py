"""Regenerate and merge on the golden ToDo manifest (283 nodes), template warm (issue 21).

1. first apply of tests/data/averos/todoapp-manifest.json (not timed: the applied state and its
   pristine tree);
2. the manifest gains one member; ``plan`` with its code patch is timed: a clean generation of
   the new manifest in a scratch workspace (the share spent generating is printed) and the
   three-way merge into the workspace, in memory;
3. ``run`` of that plan (``expected_plan_hash``) is timed: the generated tree is in the
   pristine store, so the apply is the merge written, the workspace opened (node_modules
   linked) and the state recorded.

Targets (2-core machine): plan <= 15 s, apply <= 10 s.

    python bench/regen_cycle.py [--runs 3] [--quick]

The template is built on first use (minutes); set AVEROS_CI_CACHE_DIR to choose the cache.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from averos_ci.config import RunConfig, load_config
from averos_ci.execute import apply
from averos_ci.execute.adapters import adapter_options, get_adapter
from averos_ci.execute.adapters.angular.testing import template_workspace
from averos_ci.execute.regen import plan_patch
from averos_ci.execute.regen.patching import PatchPlan
from averos_ci.plan.command import project_base
from averos_ci.plan.identity import execution_identity

REPO = Path(__file__).resolve().parents[1]
GOLDEN = REPO / "tests" / "data" / "averos" / "todoapp-manifest.json"
PLAN_TARGET, APPLY_TARGET = 15.0, 10.0


def _one_member_more(doc: dict[str, Any]) -> dict[str, Any]:
    entity = doc["project"]["averosApplication"]["entities"][0]
    ename = entity["members"][0]["ename"]
    entity["members"].append(
        {"memberNature": "simple", "mname": "benchNote", "memberType": "string", "ename": ename}
    )
    return doc


def _plan(cfg: RunConfig) -> tuple[PatchPlan, float, float]:
    """The plan with its code patch: (plan, seconds, seconds the clean generation took)."""
    started = time.perf_counter()
    base = project_base(cfg, fatal=True)
    adapter = get_adapter(cfg.adapter, adapter_options(cfg))
    pp = plan_patch(base.planned, config=cfg, adapter=adapter, execution=execution_identity(cfg))
    elapsed = time.perf_counter() - started
    result = pp.new.result
    return pp, elapsed, result.summary.duration_ms / 1000 if result is not None else 0.0


def one_round(base: Path) -> tuple[float, float, float, int, int]:
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
    pp, plan_s, generate_s = _plan(cfg)
    if pp.patch.conflicts or pp.patch.generator_failed:
        raise SystemExit(f"the one-member change does not apply: {pp.patch.to_wire()}")
    started = time.perf_counter()
    outcome = apply(cfg, expected_plan_hash=pp.planned.plan.plan_hash)
    apply_s = time.perf_counter() - started
    if not outcome.summary.success:
        raise SystemExit(f"apply failed: {outcome.summary.failures[:3]}")
    return plan_s, generate_s, apply_s, len(pp.planned.plan.nodes), len(pp.patch.files)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="one round")
    args = parser.parse_args()
    rounds = 1 if args.quick else max(1, args.runs)
    print(f"template: {template_workspace()}")
    results = []
    for i in range(rounds):
        with tempfile.TemporaryDirectory(prefix="averos-bench-regen-") as tmp:
            results.append(one_round(Path(tmp)))
        plan_s, gen_s, apply_s, nodes, files = results[-1]
        print(f"round {i + 1}: plan with patch {plan_s:.2f} s (generating {gen_s:.2f} s, "
              f"{gen_s / plan_s:.0%}; {nodes} nodes, {files} file(s) changed), "
              f"apply {apply_s:.2f} s")  # fmt: skip
    plan_s = statistics.median(r[0] for r in results)
    gen_s = statistics.median(r[1] for r in results)
    apply_s = statistics.median(r[2] for r in results)
    print(f"median of {rounds}: plan {plan_s:.2f} s (target <= {PLAN_TARGET:.0f} s: "
          f"{'met' if plan_s <= PLAN_TARGET else 'NOT met'}), of which generating {gen_s:.2f} s "
          f"({gen_s / plan_s:.0%}); apply {apply_s:.2f} s (target <= {APPLY_TARGET:.0f} s: "
          f"{'met' if apply_s <= APPLY_TARGET else 'NOT met'})")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
