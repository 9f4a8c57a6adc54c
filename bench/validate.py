"""Benchmark: `averos-ci validate <golden>` against a bare ruamel.yaml load of the same file.

Prints medians over several fresh-process runs and the ratio
validate / (bare load + interpreter start). Target: <= 2x.

    python bench/validate.py [--runs 7] [--manifest PATH]
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--manifest", type=Path, default=GOLDEN)
    args = parser.parse_args()
    py = sys.executable
    exe = shutil.which("averos-ci")
    validate_cmd = [exe] if exe else [py, "-m", "averos_ci"]
    path = str(args.manifest)
    start = wall([py, "-c", "pass"], runs=args.runs)
    bare = wall(
        [
            py,
            "-c",
            "import sys\nfrom ruamel.yaml import YAML\n"
            "YAML(typ='rt').load(open(sys.argv[1], encoding='utf-8').read())",
            path,
        ],
        runs=args.runs,
    )
    imp = wall([py, "-c", "import averos_ci"], runs=args.runs)
    val = wall([*validate_cmd, "validate", path], runs=args.runs)
    print(f"file: {path} ({args.manifest.stat().st_size} bytes), {args.runs} runs, medians")
    print(f"  interpreter start            {start * 1000:8.1f} ms")
    print(f"  python -c 'import averos_ci' {imp * 1000:8.1f} ms")
    print(f"  bare ruamel.yaml load        {bare * 1000:8.1f} ms  (fresh process, incl. start)")
    print(f"  averos-ci validate           {val * 1000:8.1f} ms")
    print(f"  ratio validate / (bare load + start) = {val / bare:.2f}x  (target <= 2x)")


if __name__ == "__main__":
    main()
