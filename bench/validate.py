"""Benchmark: `averos-ci validate` against a bare load of the same file with the parser the
product uses for it (stdlib ``json`` for .json, ruamel.yaml round-trip for YAML), each in a
fresh process (the interpreter start is part of both).

Runs are paired (bare, validate, bare, validate, ...) so that a change of load on the machine
hits both alike. Prints the medians of wall time and of CPU time (user + system of the child:
less sensitive to other processes on a shared machine) and the ratio validate / bare load.
Target: <= 2x on the golden manifest. Then the floor: what the command's imports cost alone,
and what the click tree and the pydantic models would add (a plain call loads neither).

    python bench/validate.py [--runs 7] [--quick] [--manifest PATH ...]
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

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "tests" / "data" / "averos" / "todoapp-manifest.json"
EXAMPLE = ROOT / "examples" / "todoapp" / "todoapp.manifest.yaml"
TARGET = 2.0

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


def paired(cmds: list[list[str]], runs: int) -> list[tuple[float, float]]:
    """Median (wall, cpu) of each command, the commands interleaved run by run."""
    samples: list[list[tuple[float, float]]] = [[] for _ in cmds]
    for _ in range(runs):
        for i, cmd in enumerate(cmds):
            samples[i].append(once(cmd))
    return [
        (statistics.median(w for w, _ in s), statistics.median(c for _, c in s)) for s in samples
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--quick", action="store_true", help="one run (CI: the bench works)")
    parser.add_argument("--manifest", type=Path, action="append")
    args = parser.parse_args()
    runs = 1 if args.quick else args.runs
    py = sys.executable
    exe = shutil.which("averos-ci")
    validate_cmd = [exe] if exe else [py, "-m", "averos_ci"]
    print(f"{runs} paired runs, medians (wall ms / CPU ms)")
    for manifest in args.manifest or [GOLDEN, EXAMPLE]:
        path = str(manifest)
        is_json = manifest.suffix == ".json"
        parser_name = "stdlib json" if is_json else "ruamel.yaml (rt)"
        bare_cmd = [py, "-c", BARE_JSON if is_json else BARE_YAML, path]
        (bw, bc), (vw, vc) = paired([bare_cmd, [*validate_cmd, "validate", path]], runs)
        print(f"file: {manifest.name} ({manifest.stat().st_size} bytes)")
        print(f"  bare {parser_name:<18} load {bw * 1000:7.1f} / {bc * 1000:6.1f}")
        print(f"  averos-ci validate            {vw * 1000:7.1f} / {vc * 1000:6.1f}")
        ratio = vc / bc
        verdict = "met" if ratio <= TARGET else "NOT met"
        print(
            f"  ratio validate / bare load: wall {vw / bw:.1f}x, CPU {ratio:.1f}x"
            + (f"  (target <= {TARGET:.0f}x on CPU: {verdict})" if manifest == GOLDEN else "")
        )
    print("floor: the imports of `validate` alone (and what it no longer loads)")
    floor = paired([[py, "-c", code] for _, code in FLOOR], runs)
    for (label, _), (w, c) in zip(FLOOR, floor, strict=True):
        print(f"  {label:<29} {w * 1000:7.1f} / {c * 1000:6.1f}")


if __name__ == "__main__":
    main()
