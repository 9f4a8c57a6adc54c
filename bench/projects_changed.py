"""Benchmark: `averos-ci projects --changed` on a generated repository of many projects.

A repository of N projects (`apps/pNNN`, mock adapter) on `main`; a branch changes 3 of them
(plus files of no project). Prints the median wall time of a fresh `averos-ci projects
--changed --base main --format github-matrix` process, checks that exactly those 3 are listed,
and the same for a plain `averos-ci projects` (discovery only). Target (bench/_targets.py;
exit 1 when it misses): 100 projects <= 2 s.

    python bench/projects_changed.py [--projects 100] [--runs 5] [--quick] [--targets-scale X]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._figures import Figures, add_arguments
from bench._monorepo import git, make_monorepo, touch
from bench._timing import own_git_identity, wall


def main() -> int:
    own_git_identity()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--projects", type=int, default=100)
    parser.add_argument("--runs", type=int, default=None, help="5 (quick: 3)")
    parser.add_argument("--quick", action="store_true", help="3 runs")
    add_arguments(parser)
    args = parser.parse_args()
    runs = args.runs or (3 if args.quick else 5)
    figures = Figures("projects_changed", quick=args.quick, scale=args.targets_scale)
    exe = shutil.which("averos-ci")
    if exe is None:
        return figures.cannot_measure("averos-ci is not installed in this environment")
    tmp = Path(tempfile.mkdtemp(prefix="averos-bench-projects-"))
    try:
        repo = tmp / "repo"
        make_monorepo(repo, args.projects)
        git(repo, "checkout", "-q", "-b", "feature")
        picked = [f"apps/p{i:03d}" for i in (1, args.projects // 2, args.projects - 1)]
        touch(repo, f"{picked[0]}/app.manifest.yaml", "README.md")
        touch(repo, f"{picked[1]}/averos.config.json", "libs/shared/theme.scss")
        touch(repo, f"{picked[2]}/app.manifest.yaml")
        cmd = [exe, "projects", "--changed", "--base", "main", "--format", "github-matrix"]
        out = subprocess.run(cmd, cwd=repo, capture_output=True, text=True, check=True).stdout
        listed = [row["project"] for row in json.loads(out)["include"]]
        if listed != picked:
            sys.exit(f"wrong projects listed: {listed} != {picked}")
        changed = wall(cmd, runs=runs, cwd=str(repo))
        discover = wall([exe, "projects"], runs=runs, cwd=str(repo))
        print(f"projects: {args.projects}, runs: {runs}, listed: {', '.join(listed)}")
        print(f"projects --changed (median): {changed:.3f} s")
        print(f"projects, discovery only (median): {discover:.3f} s")
        print(f"--changed / discovery: {changed / discover:.2f}x")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if args.projects != 100:
        print("(not 100 projects: no verdict)")
        return 0
    figures.check("projects_changed.changed_s", changed)
    return figures.exit_code()


if __name__ == "__main__":
    raise SystemExit(main())
