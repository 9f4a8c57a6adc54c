"""A small GitHub world for end-to-end tests: a bare origin in tmp_path, a developer clone,
fresh job checkouts, the shared event payloads (copied, then edited) and the CLI run as a
job would run it."""

from __future__ import annotations

import copy
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from averos_ci._token import KEY_VARS, TOKEN_VARS
from averos_ci.review.comment import PlanMeta
from tests.github import job_server
from tests.github.gh_fake import TOKEN, FakeGitHub

REPO_ROOT = Path(__file__).resolve().parents[2]
EVENTS = REPO_ROOT / "tests" / "data" / "github" / "events"
EXAMPLE_DIR = REPO_ROOT / "examples" / "todoapp"
STATE_BRANCH = "averos-state"
CLI = [sys.executable, "-c", "from averos_ci.cli import main; main()"]


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, text=True
    ).stdout.strip()


def load_payload(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((EVENTS / name).read_text(encoding="utf-8"))
    return copy.deepcopy(data)


def manifest_variant(extra: int) -> str:
    """The example manifest plus ``extra`` French translation entries (each a create node)."""
    text = (EXAMPLE_DIR / "todoapp.manifest.yaml").read_text(encoding="utf-8").rstrip("\n")
    lines = [text] + [
        f"      - {{ localeID: extra.k{i}, localeValue: V{i}, targetEntity: ToDoArea }}"
        for i in range(extra)
    ]
    return "\n".join(lines) + "\n"


@dataclass
class JobResult:
    code: int
    stdout: str
    stderr: str
    outputs: dict[str, str]
    summary: str


@dataclass
class PlanWorkflow:
    """The plan workflow's three jobs (examples/workflows/averos-plan.yml): ``patch`` and
    ``complete`` are ``None`` when the plan job said no code change is needed."""

    plan: JobResult
    patch: JobResult | None = None
    complete: JobResult | None = None
    artifact: Path | None = None  # the patch job's result file, as uploaded
    run: tuple[dict[str, Any], str, str] | None = None  # the event, run id and attempt

    @property
    def last(self) -> JobResult:
        return self.complete or self.patch or self.plan


@dataclass
class FollowUp:
    """The fork follow-up's job: its ``plan`` and ``complete`` steps, and its checkout."""

    plan: JobResult
    complete: JobResult
    checkout: Path


PATCH_ARTIFACT = Path("averos-ci-patch") / "averos-patch.json"  # under each job's RUNNER_TEMP


@dataclass
class World:
    root: Path
    fake: FakeGitHub
    github_settings: dict[str, Any] = field(default_factory=dict)
    adapter_options: dict[str, Any] = field(default_factory=dict)
    jobs: int = 0
    # GitHub's run ids: each job is its own run unless it is a re-run, which keeps the run's
    # GITHUB_RUN_ID and increments GITHUB_RUN_ATTEMPT
    attempts: dict[str, int] = field(default_factory=dict)
    last_run_id: str | None = None
    extra_env: dict[str, str] = field(default_factory=dict)  # e.g. the state key's secret
    # jobs forked from this worker's preloaded zygote (tests/github/job_server.py); False:
    # each a fresh interpreter, for tests that read the /proc or memory of a job's ancestors
    fork_jobs: bool = True

    def __post_init__(self) -> None:
        self.origin = self.root / "origin.git"
        self.dev = self.root / "dev"
        git(self.root, "init", "-q", "--bare", "-b", "main", str(self.origin))
        git(self.root, "clone", "-q", str(self.origin), str(self.dev))
        git(self.dev, "checkout", "-q", "-b", "main")
        self.write_config()
        (self.dev / "todoapp.manifest.yaml").write_text(manifest_variant(0), encoding="utf-8")
        (self.dev / ".gitignore").write_text(".averos/\n", encoding="utf-8")
        git(self.dev, "add", "-A")
        git(self.dev, "commit", "-q", "-m", "initial")
        git(self.dev, "push", "-q", "origin", "main")
        self.fake.base_sha = git(self.dev, "rev-parse", "HEAD")  # what new PRs merge into
        self.fake.branch_sha = self.branch_sha

    def branch_sha(self, branch: str) -> str | None:
        """``branch``'s tip on the origin, or ``None``."""
        try:
            return git(self.origin, "rev-parse", "--verify", "--quiet", f"refs/heads/{branch}")
        except subprocess.CalledProcessError:
            return None

    def write_config(self) -> None:
        config = json.loads((EXAMPLE_DIR / "averos.mock.config.json").read_text(encoding="utf-8"))
        config["github"] = {
            "progressIntervalSeconds": 0,
            "apiMaxWaitSeconds": 5,
            **self.github_settings,
        }
        config["adapterOptions"] = self.adapter_options
        (self.dev / "averos.config.json").write_text(
            json.dumps(config, indent=2) + "\n", encoding="utf-8"
        )

    # -- git -------------------------------------------------------------------------------

    def commit(
        self, branch: str, files: Mapping[str, str], message: str, *, base: str = "main"
    ) -> str:
        existing = git(self.dev, "branch", "--list", branch)
        if existing:
            git(self.dev, "checkout", "-q", branch)
        else:
            git(self.dev, "checkout", "-q", "-b", branch, base)
        for rel, text in files.items():
            (self.dev / rel).write_text(text, encoding="utf-8")
        git(self.dev, "add", "-A")
        git(self.dev, "commit", "-q", "-m", message)
        git(self.dev, "push", "-q", "origin", branch)
        return git(self.dev, "rev-parse", "HEAD")

    def merge(self, branch: str) -> str:
        git(self.dev, "checkout", "-q", "main")
        git(self.dev, "pull", "-q", "--ff-only", "origin", "main")
        git(self.dev, "merge", "-q", "--no-ff", "-m", f"Merge {branch}", branch)
        git(self.dev, "push", "-q", "origin", "main")
        return git(self.dev, "rev-parse", "HEAD")

    def checkout(self, sha: str) -> Path:
        """A fresh clone at ``sha``, as actions/checkout leaves it."""
        self.jobs += 1
        job = self.root / "jobs" / str(self.jobs)
        git(self.root, "clone", "-q", str(self.origin), str(job))
        git(job, "checkout", "-q", "--detach", sha)
        return job

    def state_files(self) -> dict[str, str]:
        """The files on the state branch of origin (path -> content)."""
        # one commit for the listing and the reads: a running job may move the branch between
        try:
            tip = git(self.origin, "rev-parse", "--verify", "-q", f"{STATE_BRANCH}^{{commit}}")
            listing = git(self.origin, "ls-tree", "-r", "--name-only", tip)
        except subprocess.CalledProcessError:
            return {}
        # the pristine tree's blobs are binary (an app's favicon): shown, never decoded strictly
        return {
            p: subprocess.run(
                ["git", "show", f"{tip}:{p}"],
                cwd=self.origin,
                check=True,
                capture_output=True,
            )
            .stdout.decode("utf-8", "replace")
            .strip()
            for p in listing.splitlines()
            if p
        }

    def state_tip(self) -> str | None:
        try:
            return git(self.origin, "rev-parse", f"refs/heads/{STATE_BRANCH}")
        except subprocess.CalledProcessError:
            return None

    def approve_command(self, number: int) -> str:
        """``/averos approve <planHash prefix>`` for the plan in PR ``number``'s sticky comment."""
        for c in self.fake.bot_comments(number):
            meta = PlanMeta.decode(str(c["body"]))
            if meta is not None and "averos-ci:plan" in str(c["body"]):
                return f"/averos approve {meta.plan_hash[:12]}"
        raise AssertionError(f"no plan comment on #{number}")

    # -- events ----------------------------------------------------------------------------

    def _repo(self, payload: dict[str, Any]) -> None:
        payload["repository"]["full_name"] = self.fake.repo
        payload["repository"]["default_branch"] = "main"

    def pr_event(self, action: str, number: int, *, sender: str | None = None) -> dict[str, Any]:
        """``sender``: who pushed (``synchronize``) or opened the PR; default: its author."""
        payload = load_payload(
            "pull_request.synchronize.json"
            if action == "synchronize"
            else "pull_request.opened.json"
        )
        self._repo(payload)
        pr = self.fake.pulls[number]
        payload["action"], payload["number"] = action, number
        p = payload["pull_request"]
        p["number"], p["user"]["login"] = number, pr["user"]["login"]
        p["head"]["sha"], p["head"]["ref"] = pr["head"]["sha"], pr["head"]["ref"]
        p["head"]["repo"]["full_name"] = pr["head"]["repo"]["full_name"]
        p["base"]["repo"]["full_name"] = self.fake.repo
        p["base"]["sha"] = pr["base"]["sha"]
        payload["sender"]["login"] = sender or pr["user"]["login"]
        return payload

    def comment_event(self, number: int, comment: dict[str, Any]) -> dict[str, Any]:
        payload = load_payload("issue_comment.created.json")
        self._repo(payload)
        payload["issue"]["number"] = number
        payload["issue"]["user"]["login"] = self.fake.pulls[number]["user"]["login"]
        c = payload["comment"]
        c.update(
            id=comment["id"],
            body=comment["body"],
            created_at=comment["created_at"],
            updated_at=comment["updated_at"],
        )
        c["user"]["login"] = comment["user"]["login"]
        return payload

    def review_event(self, number: int, review: dict[str, Any]) -> dict[str, Any]:
        payload = load_payload("pull_request_review.submitted.json")
        self._repo(payload)
        pr = self.fake.pulls[number]
        payload["review"].update(
            id=review["id"],
            state=review["state"].lower(),
            commit_id=review["commit_id"],
            body=review.get("body", ""),
            submitted_at=review["submitted_at"],
        )
        payload["review"]["user"]["login"] = review["user"]["login"]
        p = payload["pull_request"]
        p["number"], p["user"]["login"], p["head"]["sha"] = (
            number,
            pr["user"]["login"],
            pr["head"]["sha"],
        )
        p["base"]["sha"] = pr["base"]["sha"]
        return payload

    def push_event(self, sha: str, before: str | None = None) -> dict[str, Any]:
        """A push of ``sha`` to main; ``before`` defaults to its first parent."""
        payload = load_payload("push.json")
        self._repo(payload)
        if before is None:
            try:
                before = git(self.origin, "rev-parse", "--verify", "--quiet", f"{sha}^1")
            except subprocess.CalledProcessError:  # a root commit: the branch was created
                before = "0" * 40
        payload.update(ref="refs/heads/main", after=sha, before=before)
        return payload

    def schedule_event(self, cron: str = "17 3 * * *") -> dict[str, Any]:
        """A ``schedule`` run of the default branch (the payload carries the cron line)."""
        payload = {"schedule": cron, "repository": self.push_event(self.main())["repository"]}
        payload["workflow"] = ".github/workflows/averos-drift.yml"
        return payload

    def main(self) -> str:
        return git(self.origin, "rev-parse", "refs/heads/main")

    # -- jobs ------------------------------------------------------------------------------

    def job_env(
        self,
        event_name: str,
        payload: dict[str, Any],
        checkout: Path,
        sha: str,
        *,
        rerun_of: str | None = None,
    ) -> dict[str, str]:
        """The job's environment; ``rerun_of``: the run id this job re-runs (next attempt)."""
        run_id = rerun_of or str(self.jobs)
        self.attempts[run_id] = self.attempts.get(run_id, 0) + 1
        self.last_run_id = run_id
        d = checkout.parent / f"{checkout.name}-runner"
        d.mkdir(parents=True, exist_ok=True)
        event_path = d / "event.json"
        event_path.write_text(json.dumps(payload), encoding="utf-8")
        for name in ("output", "summary"):
            (d / name).touch()
        env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
        env.update(
            {
                "GITHUB_EVENT_NAME": event_name,
                "GITHUB_EVENT_PATH": str(event_path),
                "GITHUB_REPOSITORY": self.fake.repo,
                "GITHUB_API_URL": self.fake.url,
                "GITHUB_SHA": sha,
                "GITHUB_REF": "refs/heads/main",
                "GITHUB_TOKEN": TOKEN,
                "GITHUB_OUTPUT": str(d / "output"),
                "GITHUB_STEP_SUMMARY": str(d / "summary"),
                "GITHUB_WORKSPACE": str(checkout),
                "GITHUB_RUN_ID": run_id,
                "GITHUB_RUN_ATTEMPT": str(self.attempts[run_id]),
                "RUNNER_TEMP": str(d),
                **self.extra_env,
            }
        )
        return env

    def run(
        self,
        event_name: str,
        payload: dict[str, Any],
        sha: str,
        *,
        command: str = "auto",
        checkout: Path | None = None,
        timeout: float = 120,
        rerun_of: str | None = None,
    ) -> JobResult:
        """Run ``averos-ci github <command>`` in a fresh checkout, as a separate process
        (``rerun_of``: as a re-run of that run id)."""
        checkout = checkout or self.checkout(sha)
        env = self.job_env(event_name, payload, checkout, sha, rerun_of=rerun_of)
        return self.job(command, checkout, env, timeout=timeout)

    def plan_workflow(
        self,
        number: int,
        head: str,
        *,
        action: str = "opened",
        sender: str | None = None,
        timeout: float = 300,
        artifact: Callable[[Path], None] | None = None,
        complete: bool = True,
    ) -> PlanWorkflow:
        """Run the plan workflow on PR ``number`` at ``head`` the way the example workflow
        does: job ``plan`` (token), then — when its ``patch-needed`` output is true — job
        ``patch`` in a fresh checkout with no token or state key in its environment, its
        result file passed on as an artifact (a file copied into the next job's runner
        folder), and job ``complete`` (token) reading it. ``artifact``: called with the
        uploaded file before ``complete`` downloads it (tests forge it there). ``complete``
        false: the run stops before its last job (:meth:`complete_job` runs it)."""
        payload = self.pr_event(action, number, sender=sender)
        plan = self.run("pull_request", payload, head, command="plan", timeout=timeout)
        run_id, attempt = self.last_run_id, str(self.attempts.get(self.last_run_id or "", 1))
        if plan.code != 0 or plan.outputs.get("patch-needed") != "true":
            return PlanWorkflow(plan)
        checkout = self.checkout(head)
        env = self.job_env("pull_request", payload, checkout, head)
        env.update(GITHUB_RUN_ID=str(run_id), GITHUB_RUN_ATTEMPT=attempt)
        for name in (*TOKEN_VARS, *KEY_VARS):  # `permissions: contents: read`, no token input
            env.pop(name, None)
        patch = self.job("patch", checkout, env, timeout=timeout)
        uploaded = Path(env["RUNNER_TEMP"]) / PATCH_ARTIFACT
        if patch.code != 0:
            return PlanWorkflow(plan, patch)
        workflow = PlanWorkflow(plan, patch, artifact=uploaded, run=(payload, str(run_id), attempt))
        if not complete:
            return workflow
        if artifact is not None:
            artifact(uploaded)
        return self.complete_job(workflow, head, timeout=timeout)

    def complete_job(
        self,
        workflow: PlanWorkflow,
        head: str,
        *,
        artifact: Path | None = None,
        timeout: float = 300,
    ) -> PlanWorkflow:
        """Job ``complete`` of ``workflow``'s run (one :meth:`plan_workflow` stopped before it)
        in a fresh checkout of ``head``, ``artifact`` (default: the file the patch job
        uploaded) downloaded into its runner folder; ``workflow`` with that job's result."""
        assert workflow.run is not None and workflow.artifact is not None, "no patch job ran"
        payload, run_id, attempt = workflow.run
        checkout = self.checkout(head)
        env = self.job_env("pull_request", payload, checkout, head)
        env.update(GITHUB_RUN_ID=run_id, GITHUB_RUN_ATTEMPT=attempt)
        downloaded = Path(env["RUNNER_TEMP"]) / PATCH_ARTIFACT
        downloaded.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(artifact or workflow.artifact, downloaded)
        complete = self.job("complete", checkout, env, timeout=timeout)
        return replace(workflow, complete=complete)

    def fork_follow_up(
        self, head: str, branch: str, artifact: Path | None, *, pusher: str = "alice"
    ) -> FollowUp:
        """The privileged follow-up of a fork PR's plan run (examples/workflows/
        averos-fork-comment.yml): one job on the default branch's checkout, step ``plan``,
        then — the triggering run's ``averos-patch`` artifact (``artifact``; ``None``: none
        was uploaded) downloaded into the runner folder — step ``complete``."""
        main = git(self.origin, "rev-parse", "refs/heads/main")
        payload = {
            "action": "completed",
            "workflow_run": {
                "id": 4242,
                "event": "pull_request",
                "head_sha": head,
                "head_branch": branch,
                "head_repository": {"full_name": "someone/fork", "owner": {"login": "someone"}},
                "actor": {"login": pusher},  # who pushed the head
            },
            "repository": self.push_event(main)["repository"],
        }
        checkout = self.checkout(main)
        plan = self.run("workflow_run", payload, main, command="plan", checkout=checkout)
        run_id = str(self.last_run_id)
        env = self.job_env("workflow_run", payload, checkout, main)  # the same job's runner
        env.update(GITHUB_RUN_ID=run_id, GITHUB_RUN_ATTEMPT=str(self.attempts[run_id] - 1))
        self.attempts[run_id] -= 1  # a step of the same run, not a re-run
        for name in ("GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY"):  # each step has its own
            Path(env[name]).write_text("", encoding="utf-8")
        if artifact is not None:
            downloaded = Path(env["RUNNER_TEMP"]) / PATCH_ARTIFACT
            downloaded.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(artifact, downloaded)
        complete = self.job("complete", checkout, env, timeout=300)
        return FollowUp(plan, complete, checkout)

    def job(
        self,
        command: str,
        checkout: Path,
        env: dict[str, str],
        *,
        timeout: float,
        args: Sequence[str] = (),
    ) -> JobResult:
        """``averos-ci github <command> [args]`` as a job's step runs it, in ``checkout`` with
        ``env``."""
        argv = [*CLI, "github", command, *args]
        if self.fork_jobs and job_server.forkable(env):
            proc = job_server.run_forked(argv, cwd=checkout, env=env, timeout=timeout)
        else:
            proc = subprocess.run(
                argv, cwd=checkout, env=env, capture_output=True, text=True, timeout=timeout
            )
        return self.result(proc.returncode, proc.stdout, proc.stderr, env)

    def start(
        self,
        event_name: str,
        payload: dict[str, Any],
        sha: str,
        *,
        command: str = "auto",
        rerun_of: str | None = None,
    ) -> tuple[subprocess.Popen[str], dict[str, str]]:
        checkout = self.checkout(sha)
        env = self.job_env(event_name, payload, checkout, sha, rerun_of=rerun_of)
        proc = subprocess.Popen(
            [*CLI, "github", command],
            cwd=checkout,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        return proc, env

    @staticmethod
    def result(code: int, stdout: str, stderr: str, env: Mapping[str, str]) -> JobResult:
        outputs: dict[str, str] = {}
        for line in Path(env["GITHUB_OUTPUT"]).read_text(encoding="utf-8").splitlines():
            if "=" in line:
                key, _, value = line.partition("=")
                outputs[key] = value
        summary = Path(env["GITHUB_STEP_SUMMARY"]).read_text(encoding="utf-8")
        return JobResult(code, stdout, stderr, outputs, summary)


def make_world(tmp_path: Path, fake: FakeGitHub, **kwargs: Any) -> World:
    shutil.rmtree(tmp_path / "world", ignore_errors=True)
    (tmp_path / "world").mkdir()
    return World(tmp_path / "world", fake, **kwargs)
