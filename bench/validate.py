"""Benchmark: `averos-ci validate` against a bare load of the same file with the parser the
product uses for it (stdlib ``json`` for .json, ruamel.yaml round-trip for YAML), each in a
fresh process (the interpreter start is part of both).

Runs are paired (bare, validate, bare, validate, ...) so that a change of load on the machine
hits both alike. Prints the medians of wall time and of CPU time (user + system of the child:
less sensitive to other processes on a shared machine) and the CPU ratio validate / bare
load, the median of the per-pair ratios. Targets (bench/_targets.py): <= 2x on the golden JSON
and on the example YAML; exit 1 when one misses. Then the floor: what the command's imports
cost alone, and what the click tree and the pydantic models would add (a plain call loads
neither).

    python bench/validate.py [--runs 7] [--quick] [--manifest PATH ...] [--targets-scale X]

--quick: 5 paired runs (the floor once).
"""

from __future__ import annotations

import argparse
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from _figures import Figures, add_arguments

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "tests" / "data" / "averos" / "todoapp-manifest.json"
EXAMPLE = ROOT / "examples" / "todoapp" / "todoapp.manifest.yaml"
FIGURE = {GOLDEN: "validate.json_cpu_ratio", EXAMPLE: "validate.yaml_cpu_ratio"}

BARE_JSON = "import json, sys\njson.loads(open(sys.argv[1], encoding='utf-8').read())"
BARE_YAML = (
    "import sys\nfrom ruamel.yaml import YAML\n"
    "YAML(typ='rt', pure=True).load(open(sys.argv[1], encoding='utf-8').read())"
)
# What `validate` imports, and for comparison what a plain call no longer imports (the click
# tree and the pydantic models: averos_ci/cli/__init__.py and averos_ci/manifest/shape.py).
VALIDATE_IMPORTS = (
    "import averos_ci.cli, averos_ci._token, averos_ci.manifest.validate, averos_ci.manifest.rules"
)
FLOOR = [
    ("interpreter start", "pass"),
    ("+ the modules `validate` loads", VALIDATE_IMPORTS),
    ("not loaded: typer, click", "import averos_ci.cli._app"),
    ("not loaded: pydantic models", "import averos_ci.manifest.schema"),
]


def once(cmd: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds of ``cmd`` in a fresh process (which must exit 0)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} exited {proc.returncode}:\n{proc.stderr.decode()}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def paired(cmds: list[list[str]], runs: int) -> list[list[tuple[float, float]]]:
    """(wall, cpu) of each command in each run, the commands interleaved run by run."""
    samples: list[list[tuple[float, float]]] = [[] for _ in cmds]
    for _ in range(runs):
        for i, cmd in enumerate(cmds):
            samples[i].append(once(cmd))
    return samples


def medians(sample: list[tuple[float, float]]) -> tuple[float, float]:
    return statistics.median(w for w, _ in sample), statistics.median(c for _, c in sample)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=None, help="paired runs (default 7)")
    parser.add_argument("--quick", action="store_true", help="5 paired runs (what CI runs)")
    parser.add_argument("--manifest", type=Path, action="append")
    add_arguments(parser)
    args = parser.parse_args()
    runs = args.runs or (5 if args.quick else 7)
    figures = Figures("validate", quick=args.quick, scale=args.targets_scale)
    py = sys.executable
    exe = shutil.which("averos-ci")
    validate_cmd = [exe] if exe else [py, "-m", "averos_ci"]
    print(f"{runs} paired runs, medians (wall ms / CPU ms)")
    for manifest in args.manifest or [GOLDEN, EXAMPLE]:
        path = str(manifest)
        is_json = manifest.suffix == ".json"
        parser_name = "stdlib json" if is_json else "ruamel.yaml (rt)"
        bare_cmd = [py, "-c", BARE_JSON if is_json else BARE_YAML, path]
        bare, validate = paired([bare_cmd, [*validate_cmd, "validate", path]], runs)
        (bw, bc), (vw, vc) = medians(bare), medians(validate)
        print(f"file: {manifest.name} ({manifest.stat().st_size} bytes)")
        print(f"  bare {parser_name:<18} load {bw * 1000:7.1f} / {bc * 1000:6.1f}")
        print(f"  averos-ci validate            {vw * 1000:7.1f} / {vc * 1000:6.1f}")
        ratio = statistics.median(v[1] / b[1] for b, v in zip(bare, validate, strict=True))
        print(
            f"  ratio validate / bare load: wall {vw / bw:.2f}x, CPU {ratio:.2f}x (median of pairs)"
        )
        if manifest in FIGURE:
            figures.check(FIGURE[manifest], ratio)
    print("floor: the imports of `validate` alone (and what it no longer loads)")
    floor = paired([[py, "-c", code] for _, code in FLOOR], 1 if args.quick else runs)
    for (label, _), sample in zip(FLOOR, floor, strict=True):
        w, c = medians(sample)
        print(f"  {label:<29} {w * 1000:7.1f} / {c * 1000:6.1f}")
    if args.manifest and not set(args.manifest) >= set(FIGURE):
        print("(--manifest: only the golden JSON and the example YAML have targets)")
        return 0
    return figures.exit_code()


if __name__ == "__main__":
    raise SystemExit(main())
