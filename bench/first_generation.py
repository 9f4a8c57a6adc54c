"""Benchmark: the first real generation, i.e. the application node (the Angular workspace
with Averos in it), on a cold and on a warm machine.

Each run is a fresh process that executes the plan's application node through the Angular
adapter into an empty folder (``--child``), with the default adapter options unless said.
cold: a fresh, empty ``AVEROS_CI_CACHE_DIR`` (so npm's cache too: every package comes from
the npm registry) per run; the default ``templateCache: true`` builds the template (one
`npm ci` of the shipped lock file, the schematics offline, ngcc) and copies it in.
warm: the shared cache, default options: the cached template copied in (one untimed run
first builds it if it is missing). no-template: ``templateCache: false``, the workspace built
in place from npm's warm cache (informational, no target). Prints the median wall time, the
peak RSS of the run (the largest process of its tree) and, cold, the cache's size.
Targets (bench/_targets.py; exit 1 when one misses): cold <= 120 s on a 2-core machine,
warm <= 10 s.

    python bench/first_generation.py [--cold-runs 5] [--warm-runs 5] [--no-template-runs 5]
                                     [--quick] [--targets-scale X]

--quick (what CI runs): one warm run, checked against the warm target.
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

TINY = """\
applicationName: ToDoApp
defaultLanguageCode: en
entities:
  - name: ToDoArea
    sname: ToDoAreaService
    members:
      - {memberNature: simple, ename: ToDoArea, mname: areaId, memberType: string, memberTag: ID}
serviceConfigurations:
  - {type: service, name: ToDoAreaServiceConfiguration, id: ToDoAreaService, apiHost: 127.0.0.1,
     apiPort: 3333, apiProtocol: http, apiEndPoint: /api/todoareas}
"""


def child(workspace: Path, options: str) -> int:
    """Run the application node into ``workspace`` (must not exist)."""
    from averos_ci.execute.adapters.angular import AngularSchematicsAdapter
    from averos_ci.execute.adapters.angular.testing import context
    from averos_ci.execute.contracts import ExecutionState
    from averos_ci.plan import compute_plan

    manifest = workspace.parent / f"{workspace.name}.manifest.yaml"
    manifest.write_text(TINY, encoding="utf-8")
    node = compute_plan(manifest_path=manifest, state=None).plan.executable_nodes()[0]
    assert node.command == "ng-add", node.command
    adapter = AngularSchematicsAdapter(json.loads(options))
    ctx = context(workspace, node.id)
    adapter.preflight(ctx)
    adapter.open(ctx)
    try:
        result = adapter.execute(node, ctx, ExecutionState(cwd=workspace))
    finally:
        adapter.close()
    if not result.success:
        print(f"application node failed: {result.failure}", file=sys.stderr)
        return 1
    return 0


def run_once(workspace: Path, env: dict[str, str], options: str = "{}") -> tuple[float, float]:
    """Wall time (s) and peak RSS (MiB, largest process of the tree) of one fresh run."""
    cmd = [sys.executable, __file__, "--child", str(workspace), "--options", options]
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    assert proc.stdout is not None
    output = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{output.decode()[-3000:]}")
    if not (workspace / "angular.json").is_file():
        raise SystemExit(f"{workspace} has no angular.json: the application node did nothing")
    return elapsed, usage.ru_maxrss / 1024


def size_mb(path: Path) -> float:
    out = subprocess.run(["du", "-sk", str(path)], capture_output=True, text=True, check=True)
    return int(out.stdout.split()[0]) / 1024


def report(label: str, runs: list[tuple[float, float]], extra: str = "") -> float:
    """Print the runs; returns the median wall time."""
    med = statistics.median(t for t, _ in runs)
    peak = max(m for _, m in runs)
    spread = ", ".join(f"{t:.1f}" for t, _ in runs)
    print(
        f"{label:>11}: median {med:7.1f} s over {len(runs)} fresh runs ({spread}); "
        f"peak RSS {peak:.0f} MiB{extra}"
    )
    return med


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--options", default="{}", help=argparse.SUPPRESS)
    parser.add_argument("--cold-runs", type=int, default=5)
    parser.add_argument("--warm-runs", type=int, default=5)
    parser.add_argument("--no-template-runs", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="one warm run")
    add_arguments(parser)
    args = parser.parse_args()
    if args.child is not None:
        return child(args.child, args.options)
    figures = Figures("first_generation", quick=args.quick, scale=args.targets_scale)
    if shutil.which("npm") is None:
        return figures.cannot_measure("npm is not on PATH")
    if args.quick:
        args.cold_runs, args.warm_runs, args.no_template_runs = 0, 1, 0
    base_env = {**os.environ, "NG_CLI_ANALYTICS": "false"}
    with tempfile.TemporaryDirectory(prefix="averos-bench-first-gen-") as tmp:
        cold: list[tuple[float, float]] = []
        sizes: list[float] = []
        for i in range(args.cold_runs):
            cache = Path(tmp) / f"cold-cache-{i}"
            cache.mkdir()
            env = {**base_env, "AVEROS_CI_CACHE_DIR": str(cache), "npm_config_cache": ""}
            env.pop("npm_config_cache")
            cold.append(run_once(Path(tmp) / f"cold-{i}", env))
            sizes.append(size_mb(cache))
            shutil.rmtree(cache, ignore_errors=True)
            shutil.rmtree(Path(tmp) / f"cold-{i}", ignore_errors=True)
        if cold:
            extra = f"; cache {statistics.median(sizes):.0f} MB"
            figures.check("first_generation.cold_s", report("cold", cold, extra))
        if args.warm_runs:
            run_once(Path(tmp) / "warm-prime", base_env)  # builds the template if missing
            warm = [run_once(Path(tmp) / f"warm-{i}", base_env) for i in range(args.warm_runs)]
            figures.check("first_generation.warm_s", report("warm", warm))
        if args.no_template_runs:
            in_place = json.dumps({"templateCache": False})
            runs = [
                run_once(Path(tmp) / f"no-template-{i}", base_env, in_place)
                for i in range(args.no_template_runs)
            ]
            report("no-template", runs)
    return figures.exit_code()


if __name__ == "__main__":
    sys.exit(main())
