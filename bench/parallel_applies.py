"""Benchmark: N applies of N different projects started at once against one bare origin.

A repository of N projects (`apps/pNN`, mock adapter) on a fake GitHub API on 127.0.0.1;
one pull request adds them all; every project is planned and approved (matrix jobs), the PR
is merged, then the N apply jobs (`averos-ci github auto --config apps/pNN/averos.config.json`,
each in its own fresh checkout, as separate processes) start together. Each round starts from
an empty state branch. Prints per round: landed jobs, rejected pushes re-applied on a moved
tip (retries), re-plans, wall time from start to the last job; then the medians. Checks that
nothing was lost: every project's state.json on the final tip, serial 1, no claim left.

Target (bench/_targets.py; exit 1 when it misses): every apply lands (median of rounds).

    python bench/parallel_applies.py [--projects 20] [--runs 3] [--quick] [--targets-scale X]

The settings can be varied: --backoff 0.5 --backoff-max 15 (github.pushBackoffSeconds,
github.pushBackoffMaxSeconds) and --progress-interval 0 (github.progressIntervalSeconds; 0, the
default here, pushes checkpoints after every node: the most contention).
"""

from __future__ import annotations

import argparse
import logging
import re
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pytest_httpserver import HTTPServer

from bench._figures import Figures, add_arguments
from bench._timing import own_git_identity
from tests.github.gh_fake import FakeGitHub
from tests.github.gh_monorepo import Monorepo, make_monorepo, project_name
from tests.github.gh_world import git

RETRY = re.compile(r"re-applied on \S* after ([0-9.]+) s")


def one_round(mono: Monorepo, merge: str, names: list[str]) -> tuple[int, int, int, float, float]:
    git(mono.world.origin, "update-ref", "-d", "refs/heads/averos-state")  # a fresh start
    jobs_ready = [mono.prepare("push", mono.world.push_event(merge), merge, p) for p in names]
    started = time.perf_counter()
    results = mono.wait([mono.launch(*job) for job in jobs_ready])
    wall = time.perf_counter() - started
    files = mono.world.state_files()
    landed = 0
    for name, r in zip(names, results, strict=True):
        state = mono.state_of(name)
        if r.code == 0 and state is not None and state["serial"] == 1:
            landed += 1
        elif r.code == 0:
            raise SystemExit(f"{name}: exit 0 but its state is missing or wrong (a lost update)")
    left = [p for p in files if p.endswith(("/apply.json", "/checkpoints.json"))]
    if left and landed == len(names):
        raise SystemExit(f"every job landed but claims or checkpoints were left: {left}")
    waits = [float(w) for r in results for w in RETRY.findall(r.stdout)]
    retries = len(waits)
    replans = sum(r.stdout.count("re-planning") for r in results)
    for name, r in zip(names, results, strict=True):
        if r.code != 0:
            print(f"  {name} exit {r.code}: {r.stderr.strip().splitlines()[-1:]}")
    return landed, retries, replans, wall, sum(waits) / len(names)


def main() -> int:
    own_git_identity()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--projects", type=int, default=None, help="20 (quick: 6)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--backoff", type=float, default=None, help="github.pushBackoffSeconds")
    parser.add_argument("--backoff-max", type=float, default=None)
    parser.add_argument(
        "--progress-interval",
        type=float,
        default=0.0,
        help="github.progressIntervalSeconds (default 0: a push after every node, the most "
        "contention)",
    )
    parser.add_argument("--quick", action="store_true", help="6 projects, 1 round")
    add_arguments(parser)
    args = parser.parse_args()
    figures = Figures("parallel_applies", quick=args.quick, scale=args.targets_scale)
    count = args.projects or (6 if args.quick else 20)
    runs = 1 if args.quick else args.runs
    github: dict[str, float] = {"progressIntervalSeconds": args.progress_interval}
    if args.backoff is not None:
        github["pushBackoffSeconds"] = args.backoff
    if args.backoff_max is not None:
        github["pushBackoffMaxSeconds"] = args.backoff_max
    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # one line per fake API request
    server = HTTPServer(host="127.0.0.1", port=0, threaded=True)
    server.start()
    tmp = Path(tempfile.mkdtemp(prefix="averos-bench-parallel-"))
    try:
        mono = make_monorepo(tmp, FakeGitHub(server), github=github)
        names = [project_name(i) for i in range(count)]
        files: dict[str, str] = {}
        for i in range(count):
            files.update(mono.project_files(i))
        head = mono.open_pr(1, "apps", files)
        mono.plan_and_approve(1, head, names)
        merge = mono.merge(1, "apps")
        rounds = []
        for n in range(runs):
            landed, retries, replans, wall, slept = one_round(mono, merge, names)
            rounds.append((landed, retries, replans, wall, slept))
            print(
                f"round {n + 1}: landed {landed}/{count}, retries {retries}, "
                f"re-plans {replans}, wall {wall:.2f} s, back-off {slept:.2f} s per job"
            )
    finally:
        server.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    landed_m = statistics.median(r[0] for r in rounds)
    print(f"projects: {count}, rounds: {runs}, settings: {github or 'defaults'}")
    print(f"landed (median): {landed_m:g}/{count}")
    print(f"retries (median): {statistics.median(r[1] for r in rounds):g}")
    print(f"re-plans (median): {statistics.median(r[2] for r in rounds):g}")
    slept_m = statistics.median(r[4] for r in rounds)
    print(f"back-off waited per job (median): {slept_m:.2f} s")
    wall_m = statistics.median(r[3] for r in rounds)
    print(f"wall time (median): {wall_m:.2f} s ({wall_m / count:.2f} s per project)")
    figures.check("parallel_applies.landed_share", landed_m / count)
    return figures.exit_code()


if __name__ == "__main__":
    raise SystemExit(main())
