"""Benchmark: the content-creating requests of a pull request that touches N projects.

A monorepo of N projects (`apps/pNN`, mock adapter) on a fake GitHub API on 127.0.0.1 that
enforces GitHub's documented secondary limits (80 content-creating requests a minute, 500 an
hour); one pull request adds them all; the plan matrix runs one `github auto --config
apps/pNN/averos.config.json` job per project (one after the other, forked from a preloaded
job runner), then the `gate` step. Every POST, PATCH, PUT and DELETE is counted. Checks that
the pull request has one summary comment naming every project and that no request was refused.

Targets (bench/_targets.py; exit 1 when one misses): the requests per project, and their total
as a share of GitHub's hourly limit (500 for 200 projects; in quick mode scaled to N / 200).

    python bench/many_projects_pr.py [--projects 200] [--quick] [--targets-scale X]

--quick: 11 projects (the smallest pull request over review.project_status.MANY_PROJECTS).
"""

from __future__ import annotations

import argparse
import logging
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pytest_httpserver import HTTPServer

from averos_ci.review.project_status import MANY_PROJECTS
from averos_ci.review.summary import SUMMARY_MARKER
from bench._figures import Figures, add_arguments
from bench._timing import own_git_identity
from tests.github.gh_fake import FakeGitHub
from tests.github.gh_large_pr import plan_large_pr
from tests.github.gh_monorepo import make_monorepo, project_name

HOURLY_LIMIT = 500  # GitHub's documented secondary limit, per hour
FOR_PROJECTS = 200  # the size issue 40 asks to fit in it


def main() -> int:
    own_git_identity()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--projects", type=int, default=None, help=f"200 (quick: {MANY_PROJECTS + 1})"
    )
    parser.add_argument("--quick", action="store_true", help=f"{MANY_PROJECTS + 1} projects")
    add_arguments(parser)
    args = parser.parse_args()
    figures = Figures("many_projects_pr", quick=args.quick, scale=args.targets_scale)
    count = args.projects or (MANY_PROJECTS + 1 if args.quick else FOR_PROJECTS)
    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # one line per fake API request
    server = HTTPServer(host="127.0.0.1", port=0, threaded=True)
    server.start()
    tmp = Path(tempfile.mkdtemp(prefix="averos-bench-many-"))
    try:
        fake = FakeGitHub(server)
        fake.page_size = 100  # GitHub's largest page
        fake.enforce_secondary_limits()
        mono = make_monorepo(tmp, fake)
        started = time.perf_counter()
        pr = plan_large_pr(mono, count)
        wall = time.perf_counter() - started
        refused = len(fake.rate_limited())
        summaries = [c for c in fake.bot_comments(1) if c["body"].startswith(SUMMARY_MARKER)]
        if len(summaries) != 1:
            raise SystemExit(f"{len(summaries)} summary comments, not 1")
        missing = [
            project_name(i)
            for i in range(count)
            if f"| `{project_name(i)}` |" not in summaries[0]["body"]
        ]
        if missing or refused:
            raise SystemExit(f"the summary lacks {missing[:5]}… or {refused} requests were refused")
        # the figures before the clean-up: removing N checkouts takes a while on a busy disk
        budget = HOURLY_LIMIT * count / FOR_PROJECTS
        print(f"{count} projects: plan matrix and gate {wall:.1f} s (jobs one after the other)")
        for kind, n in sorted(pr.writes.items()):
            print(f"  {kind}: {n}")
        print(
            f"content-creating requests: {pr.total} ({pr.total / count:.3f} per project); "
            f"GitHub's hourly limit for {count} projects (scaled from {HOURLY_LIMIT} for "
            f"{FOR_PROJECTS}): {budget:g}",
            flush=True,
        )
        figures.check("many_projects_pr.writes_per_project", pr.total / count)
        figures.check("many_projects_pr.hourly_share", pr.total / budget)
    finally:
        server.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    return figures.exit_code()


if __name__ == "__main__":
    raise SystemExit(main())
