"""Benchmark: `averos-ci validate` against a bare load of the same file with the parser the
product uses for it (stdlib ``json`` for .json, ruamel.yaml round-trip for YAML), in a fresh
process (the interpreter start is part of both).

Prints medians over several fresh-process runs and, per file, the ratio
validate / (bare load + interpreter start). Target: <= 2x... for JSON this cannot hold: the
bare load is the interpreter start plus a few ms, and validate also imports the package.

    python bench/validate.py [--runs 7] [--quick] [--manifest PATH ...]
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _timing import wall

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "tests" / "data" / "averos" / "todoapp-manifest.json"
EXAMPLE = ROOT / "examples" / "todoapp" / "todoapp.manifest.yaml"

BARE_JSON = "import json, sys\njson.loads(open(sys.argv[1], encoding='utf-8').read())"
BARE_YAML = (
    "import sys\nfrom ruamel.yaml import YAML\n"
    "YAML(typ='rt', pure=True).load(open(sys.argv[1], encoding='utf-8').read())"
)


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
    start = wall([py, "-c", "pass"], runs=runs)
    imp = wall([py, "-c", "import averos_ci"], runs=runs)
    print(f"{runs} runs, medians")
    print(f"  interpreter start             {start * 1000:8.1f} ms")
    print(f"  python -c 'import averos_ci'  {imp * 1000:8.1f} ms")
    for manifest in args.manifest or [GOLDEN, EXAMPLE]:
        path = str(manifest)
        is_json = manifest.suffix == ".json"
        parser_name = "stdlib json" if is_json else "ruamel.yaml (rt)"
        bare = wall([py, "-c", BARE_JSON if is_json else BARE_YAML, path], runs=runs)
        val = wall([*validate_cmd, "validate", path], runs=runs)
        print(f"file: {manifest.name} ({manifest.stat().st_size} bytes)")
        print(f"  bare {parser_name:<18} load {bare * 1000:8.1f} ms  (fresh process, incl. start)")
        print(f"  averos-ci validate            {val * 1000:8.1f} ms")
        print(f"  ratio validate / (bare {parser_name} load + start) = {val / bare:.1f}x")


if __name__ == "__main__":
    main()
