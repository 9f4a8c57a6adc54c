"""A pull request that touches many projects of a monorepo (issue 40), on the fake GitHub: one
commit adds ``count`` projects, the plan matrix runs one job per project and the ``gate`` step
after it; every content-creating request (POST, PATCH, PUT, DELETE) the jobs send is counted.
Shared by tests/scenarios/github/test_gh_large_pr.py and bench/many_projects_pr.py."""

from __future__ import annotations

import subprocess
from collections import Counter
from dataclasses import dataclass

from tests.github import job_server
from tests.github.gh_monorepo import Monorepo, project_name
from tests.github.gh_world import CLI, JobResult, World

WRITES = ("POST", "PATCH", "PUT", "DELETE")


@dataclass(frozen=True)
class LargePr:
    head: str
    plans: list[JobResult]
    gate: JobResult
    writes: Counter[str]  # "POST /repos/…/statuses/{sha}" -> count, the plan matrix and gate

    @property
    def total(self) -> int:
        return sum(self.writes.values())


def run_job(
    mono: Monorepo, event: str, payload: dict[str, object], sha: str, *args: str
) -> JobResult:
    """``averos-ci github <args>`` in a fresh checkout (forked from the preloaded job runner
    when it can be: the jobs run one after the other)."""
    world = mono.world
    checkout = world.checkout(sha)
    env = world.job_env(event, payload, checkout, sha)
    argv = [*CLI, "github", *args]
    if job_server.forkable(env):
        proc = job_server.run_forked(argv, cwd=checkout, env=env, timeout=300)
    else:
        proc = subprocess.run(
            argv, cwd=checkout, env=env, capture_output=True, text=True, timeout=300
        )
    return World.result(proc.returncode, proc.stdout, proc.stderr, env)


def writes_since(mono: Monorepo, start: int) -> Counter[str]:
    """The content-creating requests sent since request number ``start``, by kind."""
    kinds: Counter[str] = Counter()
    for r in mono.fake.requests[start:]:
        if r.method in WRITES:
            path = r.path.split("?")[0]
            kind = "statuses" if "/statuses/" in path else path.rsplit("/", 1)[-1]
            kinds[f"{r.method} {'comments/{id}' if kind.isdigit() else kind}"] += 1
    return kinds


def plan_large_pr(mono: Monorepo, count: int, *, number: int = 1) -> LargePr:
    """Open pull request ``number`` adding ``count`` projects, run the plan matrix (one job per
    project) and the gate step; count their content-creating requests."""
    files: dict[str, str] = {}
    for i in range(count):
        files.update(mono.project_files(i))
    head = mono.open_pr(number, "many", files)
    opened = mono.world.pr_event("opened", number)
    start = len(mono.fake.requests)
    plans = [
        run_job(mono, "pull_request", opened, head, "auto", "--config", f"{p}/averos.config.json")
        for p in (project_name(i) for i in range(count))
    ]
    bad = [(r.code, r.stderr[-800:]) for r in plans if r.code != 0]
    assert not bad, f"plan jobs failed: {bad[:3]}"
    gate = run_job(mono, "pull_request", opened, head, "gate")
    assert gate.code == 0, gate.stderr
    return LargePr(head, plans, gate, writes_since(mono, start))
