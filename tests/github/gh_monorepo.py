"""A monorepo on the fake GitHub: projects ``apps/pNN`` (mock adapter, the layout of
bench/_monorepo.py) added or changed by pull requests, each job a separate process run with
``--config apps/pNN/averos.config.json`` as a matrix job would. Shared by the parallel-apply
tests and bench/parallel_applies.py."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from averos_ci.review.comment import MARKER_RE, PlanMeta
from bench._monorepo import MANIFEST
from tests.github.gh_fake import FakeGitHub
from tests.github.gh_world import CLI, JobResult, World, make_world

Job = tuple[subprocess.Popen[str], dict[str, str]]


def project_name(i: int) -> str:
    return f"apps/p{i:02d}"


@dataclass
class Monorepo:
    world: World
    # the config's ``github`` object of every project; small back-off for a busy test machine
    github: dict[str, Any] = field(default_factory=dict)
    latency_ms: int = 0
    adapter_options: dict[str, Any] = field(default_factory=dict)  # e.g. {"writeFiles": True}
    job_timeout: float = 600.0  # seconds for every job :meth:`wait_all` awaits to end

    @property
    def fake(self) -> FakeGitHub:
        return self.world.fake

    def project_files(self, i: int, *, extra_entities: int = 0) -> dict[str, str]:
        name = project_name(i)
        config = {
            "adapter": "mock",
            "manifestPath": "app.manifest.yaml",
            "workspaceRoot": "generated",
            "adapterOptions": {
                **({"latencyMs": self.latency_ms} if self.latency_ms else {}),
                **self.adapter_options,
            },
            "github": {"progressIntervalSeconds": 0, "apiMaxWaitSeconds": 5, **self.github},
        }
        manifest = MANIFEST.format(i=i) + "".join(
            f"  - name: Extra{i}x{k}\n    members:\n"
            f"      - {{memberNature: simple, ename: Extra{i}x{k}, mname: note, "
            "memberType: string}\n"
            for k in range(extra_entities)
        )
        (self.world.dev / name).mkdir(parents=True, exist_ok=True)
        return {
            f"{name}/averos.config.json": json.dumps(config, indent=2) + "\n",
            f"{name}/app.manifest.yaml": manifest,
        }

    def open_pr(
        self, number: int, branch: str, files: dict[str, str], *, base: str = "main"
    ) -> str:
        head = self.world.commit(branch, files, f"PR {number}", base=base)
        self.fake.add_pull(number, author="alice", head_sha=head, head_ref=branch)
        return head

    def plan_hash(self, number: int, project: str) -> str:
        for c in self.fake.bot_comments(number):
            body = str(c["body"])
            match = MARKER_RE.match(body)
            meta = PlanMeta.decode(body)
            if match and match.group(1) == project and meta is not None:
                return meta.plan_hash
        raise AssertionError(f"no plan comment for {project} on #{number}")

    def plan_and_approve(self, number: int, head: str, projects: Iterable[str]) -> dict[str, str]:
        """The plan matrix, then one pinned approval per project and the approve matrix.
        Returns each project's approved planHash."""
        projects = list(projects)
        event = self.world.pr_event("opened", number)
        self.wait_all([self.start("pull_request", event, head, p) for p in projects], "plan")
        hashes = {p: self.plan_hash(number, p) for p in projects}
        jobs = []
        for p in projects:
            c = self.fake.add_comment(number, user="bob", body=f"/averos approve {hashes[p][:12]}")
            jobs.append(self.start("issue_comment", self.world.comment_event(number, c), head, p))
        for r in self.wait_all(jobs, "approve"):
            assert r.outputs.get("approved") == "true", r.stdout + r.stderr
        return hashes

    def merge(self, number: int, branch: str) -> str:
        sha = self.world.merge(branch)
        self.fake.merge(number, sha)
        return sha

    def start(self, event_name: str, payload: dict[str, Any], sha: str, project: str) -> Job:
        """``averos-ci github auto --config <project>/averos.config.json`` in a fresh checkout."""
        return self.launch(*self.prepare(event_name, payload, sha, project))

    def prepare(
        self, event_name: str, payload: dict[str, Any], sha: str, project: str
    ) -> tuple[Path, dict[str, str], str]:
        checkout = self.world.checkout(sha)
        return checkout, self.world.job_env(event_name, payload, checkout, sha), project

    def run(
        self, event_name: str, payload: dict[str, Any], sha: str, project: str, *,
        command: str = "auto",
    ) -> JobResult:  # fmt: skip
        """One matrix job, forked from the preloaded job runner (jobs in turn: for tests that
        show no race, at a fraction of a fresh process's cost)."""
        checkout, env, _ = self.prepare(event_name, payload, sha, project)
        configs = "\n".join(f"{n}/averos.config.json" for n in project.split())
        return self.world.job(command, checkout, env, timeout=300, args=("--config", configs))

    def applied(self, number: int, branch: str, projects: Iterable[str]) -> str:
        """PR ``number`` planned and approved for each project, merged and applied, each job
        in turn (:meth:`run`); returns the merge."""
        projects = list(projects)
        head = self.fake.pulls[number]["head"]["sha"]
        for p in projects:
            self._ok(self.run("pull_request", self.world.pr_event("opened", number), head, p))
        for p in projects:
            c = self.fake.add_comment(
                number, user="bob", body=f"/averos approve {self.plan_hash(number, p)[:12]}"
            )
            r = self._ok(self.run("issue_comment", self.world.comment_event(number, c), head, p))
            assert r.outputs.get("approved") == "true", r.stdout + r.stderr
        merge = self.merge(number, branch)
        for p in projects:
            self._ok(self.run("push", self.world.push_event(merge), merge, p))
        return merge

    @staticmethod
    def _ok(result: JobResult) -> JobResult:
        assert result.code == 0, result.stdout[-600:] + result.stderr[-1500:]
        return result

    def drift(self, projects: Iterable[str]) -> list[JobResult]:
        """The scheduled drift workflow of the default branch's tip, its matrix jobs in turn
        (:meth:`run`; ``start_drift`` starts them at once)."""
        sha = self.world.main()
        return [
            self.run("schedule", self.world.schedule_event(), sha, p, command="drift")
            for p in projects
        ]

    def start_drift(self, projects: Iterable[str], *, runs: int = 1) -> list[Job]:
        """``runs`` scheduled drift workflows of the default branch's tip at once, each a
        matrix job per project (every checkout made first, then every job started)."""
        sha = self.world.main()
        ready = [
            self.prepare("schedule", self.world.schedule_event(), sha, p)
            for _ in range(runs)
            for p in projects
        ]
        return [self.launch(*job, command="drift") for job in ready]

    @staticmethod
    def launch(checkout: Path, env: dict[str, str], project: str, *, command: str = "auto") -> Job:
        """``averos-ci github <command> --config <project>/averos.config.json`` (``project``:
        several names separated by spaces, as a batch entry of the matrix has them)."""
        configs = "\n".join(f"{p}/averos.config.json" for p in project.split())
        proc = subprocess.Popen(
            [*CLI, "github", command, "--config", configs],
            cwd=checkout,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            process_group=0,  # killed with its git and adapter processes (see wait)
        )
        return proc, env

    def start_applies(self, runs: Iterable[tuple[str, str]]) -> list[Job]:
        """Apply jobs for (merge sha, project) pairs: every checkout is made first, then all
        jobs start together, as a matrix does."""
        ready = [self.prepare("push", self.world.push_event(sha), sha, p) for sha, p in runs]
        return [self.launch(*job) for job in ready]

    @staticmethod
    def wait(jobs: list[Job], timeout: float = 600) -> list[JobResult]:
        """Every job's result, with one deadline ``timeout`` seconds from now for all of them:
        a job still running then is killed with what it started (its process group) and
        reported — a negative code, a ``killed:`` line ending its stderr — never raised, so a
        caller counts what landed. Interrupted, it kills every job it has not awaited."""
        deadline = time.monotonic() + timeout
        results = []
        try:
            for proc, env in jobs:
                try:
                    out, err = proc.communicate(timeout=max(0.1, deadline - time.monotonic()))
                except subprocess.TimeoutExpired:
                    _kill(proc)
                    out, err = proc.communicate()
                    err += f"\nkilled: not ended {timeout:g} s after the jobs were awaited\n"
                results.append(World.result(proc.returncode, out, err, env))
        finally:
            for proc, _ in jobs[len(results) :]:
                _kill(proc)
        return results

    def wait_all(self, jobs: list[Job], what: str) -> list[JobResult]:
        results = self.wait(jobs, self.job_timeout)
        bad = [(r.code, r.stdout[-600:] + r.stderr[-1500:]) for r in results if r.code != 0]
        assert not bad, f"{what} jobs failed: {bad}"
        return results

    def state_of(self, project: str) -> dict[str, Any] | None:
        text = self.world.state_files().get(f"{project}/state.json")
        return None if text is None else dict(json.loads(text))


def _kill(proc: subprocess.Popen[str]) -> None:
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)


def make_monorepo(tmp_path: Path, fake: FakeGitHub, **kwargs: Any) -> Monorepo:
    fake.roles.update(alice="write", bob="write")
    return Monorepo(make_world(tmp_path, fake), **kwargs)
