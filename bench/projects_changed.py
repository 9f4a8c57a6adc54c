"""Benchmark: `averos-ci projects --changed` on a generated repository of many projects.

A repository of N projects (`apps/pNNN`, mock adapter) on `main`; a branch changes C of them
(manifests and configs, seeded random, plus files of no project). Prints the median wall time
of a fresh `averos-ci projects --changed --base main --format github-matrix` process and checks
that its matrix holds exactly those C projects, each once, in at most 256 entries (C > 256:
batches); the same for a plain `averos-ci projects` (discovery only).

Targets (bench/_targets.py; exit 1 when one misses): 5,000 projects, 300 changed: each <= 2 s.
--quick: 300 projects, 30 changed, with `--max-jobs 16` so the split is exercised too.

    python bench/projects_changed.py [--projects 5000] [--changed 300] [--runs 5] [--quick]
                                     [--targets-scale X]
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._figures import Figures, add_arguments
from bench._monorepo import git, make_monorepo, touch
from bench._timing import own_git_identity, wall

FULL = (5000, 300, 256)  # projects, changed, --max-jobs
QUICK = (300, 30, 16)


def main() -> int:
    own_git_identity()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--projects", type=int, default=None, help="5000 (quick: 300)")
    parser.add_argument("--changed", type=int, default=None, help="300 (quick: 30)")
    parser.add_argument("--runs", type=int, default=None, help="5 (quick: 3)")
    parser.add_argument("--quick", action="store_true", help="300 projects, 30 changed, 3 runs")
    add_arguments(parser)
    args = parser.parse_args()
    projects, changed_count, max_jobs = QUICK if args.quick else FULL
    projects = args.projects or projects
    changed_count = args.changed or changed_count
    runs = args.runs or (3 if args.quick else 5)
    figures = Figures("projects_changed", quick=args.quick, scale=args.targets_scale)
    exe = shutil.which("averos-ci")
    if exe is None:
        return figures.cannot_measure("averos-ci is not installed in this environment")
    tmp = Path(tempfile.mkdtemp(prefix="averos-bench-projects-"))
    try:
        repo = tmp / "repo"
        names = make_monorepo(repo, projects)
        git(repo, "checkout", "-q", "-b", "feature")
        picked = sorted(random.Random(7).sample(names, changed_count))
        paths = [
            f"{n}/{'averos.config.json' if i % 2 else 'app.manifest.yaml'}"
            for i, n in enumerate(picked)
        ]
        touch(repo, *paths, "README.md", "libs/shared/theme.scss")
        cmd = [exe, "projects", "--changed", "--base", "main", "--format", "github-matrix"]
        cmd += ["--max-jobs", str(max_jobs)]
        out = subprocess.run(cmd, cwd=repo, capture_output=True, text=True, check=True).stdout
        entries = json.loads(out)["include"]
        listed = [n for row in entries for n in row["project"].split(" ")]
        if listed != picked or len(entries) > max_jobs:
            sys.exit(f"wrong matrix: {len(entries)} entries, {len(listed)} projects listed")
        changed = wall(cmd, runs=runs, cwd=str(repo))
        discover = wall([exe, "projects"], runs=runs, cwd=str(repo))
        print(f"projects: {projects}, changed: {changed_count}, runs: {runs}")
        print(f"matrix: {len(entries)} entries (--max-jobs {max_jobs}), every changed one once")
        print(f"projects --changed (median): {changed:.3f} s")
        print(f"projects, discovery only (median): {discover:.3f} s")
        print(f"--changed / discovery: {changed / discover:.2f}x")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if (projects, changed_count) != (QUICK if args.quick else FULL)[:2]:
        print("(not the sizes of the targets: no verdict)")
        return 0
    figures.check("projects_changed.changed_s", changed)
    figures.check("projects_changed.discover_s", discover)
    return figures.exit_code()


if __name__ == "__main__":
    raise SystemExit(main())
