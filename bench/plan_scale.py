"""Benchmark: `averos-ci plan --format json` on synthetic manifests of growing size.

Sizes: 1,000 and 5,000 entities x 20 members (quick: 100 and 1,000; plus a use case, a service
configuration and a translation entry per entity), interleaved run by run. Prints the median
wall time, the median CPU time (user + system: what a shared, loaded machine changes least) and
the peak RSS of a fresh process per size (the largest of the runs), and the growth from the
smallest to the largest size (the median of the per-run ratios).
Targets (bench/_targets.py; exit 1 when one misses): 5,000 entities <= 7 s wall (the median)
and in CPU, a peak <= 500 MB; growth 1,000 -> 5,000 <= 6x (near-linear). On an idle machine
wall time is about CPU time; on a loaded one (the load average is printed) the wall median can
miss while CPU time meets it.

    python bench/plan_scale.py [--runs 5] [--sizes 1000,5000] [--quick] [--targets-scale X]

--quick (what CI runs): sizes 100,1000 and 3 runs, checked against the quick tolerances (CPU at
1,000 <= the linear share of the target, peak, growth 100 -> 1,000). The full mode (the
default) prints the issue-25 figures (~1-2 minutes on 2 cores).
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
from typing import Any

from _figures import Figures, add_arguments

TYPES = ["string", "number", "boolean", "date", "textarea"]


def synthetic_manifest(entities: int, members: int = 20) -> dict[str, Any]:
    ents, configs, use_cases, entries = [], [], [], []
    for i in range(entities):
        name = f"Entity{i:05d}"
        mems: list[dict[str, Any]] = [
            {
                "memberNature": "simple",
                "ename": name,
                "mname": f"field{j:02d}",
                "memberType": TYPES[j % len(TYPES)],
            }
            for j in range(members - 1)
        ]
        mems[0]["memberType"], mems[0]["memberTag"] = "string", "ID"
        target = f"Entity{(i + 1) % entities:05d}"
        # the name the Averos schematic derives (camelize(fename)): no CON-16 warning
        mems.append(
            {
                "memberNature": "composite",
                "ename": name,
                "fename": target,
                "memberName": target[0].lower() + target[1:],
                "fieldRelationType": "ManyToOne",
            }
        )
        ents.append({"name": name, "sname": f"{name}Service", "members": mems})
        configs.append(
            {
                "type": "service",
                "name": f"{name}ServiceConfiguration",
                "id": f"{name}Service",
                "apiHost": "127.0.0.1",
                "apiPort": 3000,
                "apiProtocol": "http",
                "apiEndPoint": f"/api/{name.lower()}",
            }
        )
        use_cases.append({"name": f"Search{name}", "ename": name, "useCaseType": "Search_Entity"})
        entries.append({"localeID": f"{name.lower()}.field01", "localeValue": f"Field of {name}"})
    return {
        "applicationName": "ScaleApp",
        "defaultLanguageCode": "en",
        "entities": ents,
        "serviceConfigurations": configs,
        "useCases": use_cases,
        "languages": [{"languageCode": "en", "translationEntries": entries}],
    }


def run_once(cmd: list[str]) -> tuple[float, int, float]:
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(
            f"{cmd} failed: {proc.stderr.read().decode()[-2000:] if proc.stderr else ''}"
        )
    return elapsed, usage.ru_maxrss, usage.ru_utime + usage.ru_stime  # KiB on Linux


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=None, help="runs per size (5; quick 3)")
    parser.add_argument("--sizes", default=None, help="1000,5000 (quick: 100,1000)")
    parser.add_argument("--quick", action="store_true", help="sizes 100,1000, 3 runs")
    add_arguments(parser)
    args = parser.parse_args()
    args.sizes = args.sizes or ("100,1000" if args.quick else "1000,5000")
    args.runs = args.runs or (3 if args.quick else 5)
    figures = Figures("plan_scale", quick=args.quick, scale=args.targets_scale)
    exe = shutil.which("averos-ci")
    base = [exe] if exe else [sys.executable, "-m", "averos_ci"]
    results: dict[int, float] = {}
    peaks: dict[int, float] = {}
    cpus: dict[int, float] = {}
    print(
        f"{'entities':>9} {'nodes':>8} {'manifest':>10} {'median s':>9} {'CPU s':>7} "
        f"{'peak MiB':>9}"
    )
    sizes = [int(s) for s in args.sizes.split(",")]
    growth: list[float] = []  # largest / smallest wall time, within each run (paired)
    with tempfile.TemporaryDirectory() as tmp:
        cmds: dict[int, list[str]] = {}
        for size in sizes:
            path = Path(tmp) / f"scale-{size}.manifest.json"
            path.write_text(json.dumps(synthetic_manifest(size)))
            cmds[size] = [
                *base,
                "plan",
                "--format",
                "json",
                "--manifest",
                str(path),
                "--state",
                str(Path(tmp) / "absent-state.json"),
                "--out",
                str(Path(tmp) / f"plan-{size}.json"),
                "--max-bytes",
                str(1 << 30),
            ]
        # the sizes interleaved run by run: a change of load hits every size alike
        samples: dict[int, list[tuple[float, int, float]]] = {size: [] for size in sizes}
        for _ in range(args.runs):
            for size in sizes:
                samples[size].append(run_once(cmds[size]))
            growth.append(samples[max(sizes)][-1][0] / samples[min(sizes)][-1][0])
        for size in sizes:
            runs = samples[size]
            med = statistics.median(t for t, _, _ in runs)
            cpu = statistics.median(c for _, _, c in runs)
            peak = max(m for _, m, _ in runs) / 1024
            nodes = len(json.loads(Path(tmp, f"plan-{size}.json").read_text())["nodes"])
            size_mb = Path(tmp, f"scale-{size}.manifest.json").stat().st_size / 1e6
            results[size] = med
            peaks[size] = peak
            cpus[size] = cpu
            print(f"{size:>9} {nodes:>8} {size_mb:>8.1f}MB {med:>9.2f} {cpu:>7.2f} {peak:>9.0f}")
    small, large = min(results), max(results)
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"load average {load} on {os.cpu_count()} CPUs")
    if (small, large) != ((100, 1000) if args.quick else (1000, 5000)):
        print("(other sizes than the mode's: no verdict)")
        return 0
    if not args.quick:
        figures.check("plan_scale.wall_5000", results[large])
    figures.check("plan_scale.cpu_largest", cpus[large])
    figures.check("plan_scale.peak_largest", peaks[large] * 1.048576)  # MiB -> MB
    figures.check("plan_scale.growth", statistics.median(growth))
    return figures.exit_code()


if __name__ == "__main__":
    raise SystemExit(main())
