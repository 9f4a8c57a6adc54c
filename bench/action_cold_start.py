"""Start of the composite action on a fresh runner: what every job pays before averos-ci works.

The bench runs action.yml's own shell steps (read from the file, so it measures what the action
does), then `averos-ci github plan` on examples/todoapp against a fake GitHub API on 127.0.0.1:

  cold  no environment in the cache: key step, install (uv, bootstrapped with pip: no uv on
        PATH, empty uv and pip caches), plan, then the post step that saves the environment
        (tar + zstd, as actions/cache, whose post step runs when the job ends: the archive
        holds the bytecode the job's Python wrote)
  warm  the environment restored from that archive (what actions/cache gives on a key hit),
        the install step's check, plan

The transfer to and from GitHub's cache service is not in either figure (it is a local
archive here). Targets (bench/_targets.py; exit 1 when one misses): cold <= 20 s, warm <= 6 s.
Medians of --runs fresh runs each (5 by default; --quick: 1). --pip-baseline also times the
previous install (python -m venv + pip install, empty pip cache).

    python bench/action_cold_start.py [--runs 5] [--quick] [--pip-baseline] [--targets-scale X]
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pytest_httpserver import HTTPServer  # noqa: E402
from ruamel.yaml import YAML  # noqa: E402

from bench._figures import Figures, add_arguments  # noqa: E402
from bench._timing import own_git_identity  # noqa: E402
from tests.github.gh_fake import TOKEN, FakeGitHub  # noqa: E402

EVENT = ROOT / "tests" / "data" / "github" / "events" / "pull_request.opened.json"
EXPRESSION = re.compile(r"\$\{\{\s*(.+?)\s*\}\}")
GUARD = re.compile(r"([\w.-]+) != '([\w-]+)' && ([\w.-]+)")


def evaluate(expression: str, ctx: dict[str, str]) -> str:
    """The forms action.yml uses: ``a``, ``a || b``, ``a != 'x' && b || ''`` (the first
    non-empty alternative, as GitHub's ``||``); anything else stops the bench."""
    for alternative in (part.strip() for part in expression.split("||")):
        if alternative == "''":
            value = ""
        elif guard := GUARD.fullmatch(alternative):
            value = ctx[guard[3]] if ctx[guard[1]] != guard[2] else ""
        elif re.fullmatch(r"[\w.-]+", alternative):
            value = ctx.get(alternative, "")
        else:
            raise SystemExit(f"action.yml: ${{{{ {expression} }}}}: a form this bench cannot read")
        if value:
            return value
    return ""


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True)
    return done.stdout.strip()


def timed(cmd: list[str], **kwargs: Any) -> float:
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False, **kwargs)
    took = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(
            f"{' '.join(cmd)[:300]} exited {proc.returncode}\n{proc.stdout[-2000:]}"
            f"\n{proc.stderr[-2000:]}"
        )
    return took


class Runner:
    """A fresh runner's view of the action: RUNNER_TEMP, GITHUB_OUTPUT, the steps' env."""

    def __init__(self, scratch: Path, base_env: dict[str, str]) -> None:
        steps = YAML(typ="safe").load((ROOT / "action.yml").read_text("utf-8"))["runs"]["steps"]
        self.steps = {s.get("id") or s["name"]: s for s in steps}
        self.temp = scratch / "runner-temp"  # one path, as on hosted runners: the venv's own
        self.base_env = base_env
        self.context: dict[str, str] = {
            "github.action_path": str(ROOT),
            "inputs.python": str(Path(sys.base_prefix) / "bin" / "python3"),
            "inputs.github-token": TOKEN,
            "inputs.state-key": "",
            "inputs.push-token": "",
            "inputs.patch-file": "",
            "inputs.command": "plan",
            "inputs.config": "",
        }

    def fresh(self) -> None:
        shutil.rmtree(self.temp, ignore_errors=True)
        self.temp.mkdir(parents=True)

    def run(self, step_id: str, **context: str) -> float:
        step = self.steps[step_id]
        ctx = {**self.context, **context}
        env = {**self.base_env, "RUNNER_TEMP": str(self.temp)}
        output = self.temp / f"{step_id}.output"
        env["GITHUB_OUTPUT"] = str(output)
        for name, value in step.get("env", {}).items():
            env[name] = EXPRESSION.sub(lambda m: evaluate(m.group(1), ctx), str(value))
        took = timed(["bash", "-c", step["run"]], env=env, cwd=self.base_env["GITHUB_WORKSPACE"])
        if output.exists():
            for line in output.read_text("utf-8").splitlines():
                key, _, value = line.partition("=")
                self.context[f"steps.{step_id}.outputs.{key}"] = value
        return took


def without_uv(path: str) -> str:
    """PATH minus the folders that hold a ``uv`` (a fresh runner has none to rely on)."""
    return os.pathsep.join(p for p in path.split(os.pathsep) if not Path(p, "uv").exists())


def world(tmp: Path, fake: FakeGitHub) -> dict[str, str]:
    """A repository with the example, its pull request on the fake API; the job's env."""
    origin, repo = tmp / "origin.git", tmp / "repo"
    git(tmp, "init", "-q", "--bare", "-b", "main", str(origin))
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    git(repo, "remote", "add", "origin", str(origin))
    for name in ("averos.config.json", "todoapp.manifest.yaml"):
        shutil.copy2(ROOT / "examples" / "todoapp" / name, repo / name)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "example")
    git(repo, "push", "-q", "origin", "main")
    head = git(repo, "rev-parse", "HEAD")
    fake.add_pull(1, author="alice", head_sha=head)
    payload = json.loads(EVENT.read_text("utf-8"))
    payload["repository"]["full_name"] = fake.repo
    payload["number"] = payload["pull_request"]["number"] = 1
    payload["pull_request"]["head"]["sha"] = head
    payload["pull_request"]["base"]["sha"] = head  # the approval rules are read there
    payload["pull_request"]["head"]["repo"]["full_name"] = fake.repo
    event = tmp / "event.json"
    event.write_text(json.dumps(payload), encoding="utf-8")
    # a hosted runner sets none of these (PYTHONDONTWRITEBYTECODE: Python writes its bytecode)
    skip = ("GITHUB_", "UV_", "PIP_", "PYTHONDONTWRITEBYTECODE")
    env = {k: v for k, v in os.environ.items() if not k.startswith(skip)}
    env.update(
        PATH=without_uv(env.get("PATH", "")),
        PIP_DISABLE_PIP_VERSION_CHECK="1",
        GITHUB_EVENT_NAME="pull_request",
        GITHUB_EVENT_PATH=str(event),
        GITHUB_REPOSITORY=fake.repo,
        GITHUB_API_URL=fake.url,
        GITHUB_SHA=head,
        GITHUB_WORKSPACE=str(repo),
        GITHUB_STEP_SUMMARY=str(tmp / "summary"),
    )
    for name in ("PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_FIND_LINKS", "PIP_CERT"):
        if name in os.environ:  # the machine's package sources, not its caches
            env[name] = os.environ[name]
    return env


def cold(runner: Runner, scratch: Path, archive: Path) -> dict[str, float]:
    runner.fresh()
    caches = scratch / "caches"
    shutil.rmtree(caches, ignore_errors=True)
    runner.base_env.update(UV_CACHE_DIR=str(caches / "uv"), PIP_CACHE_DIR=str(caches / "pip"))
    parts = {"key": runner.run("venv")}
    parts["install"] = runner.run("Install averos-ci", **{"steps.cache.outputs.cache-hit": ""})
    venv = runner.context["steps.venv.outputs.path"]
    parts["plan"] = runner.run("run")
    archive.unlink(missing_ok=True)
    parts["save"] = timed(["bash", "-c", f'tar -cPf - "{venv}" | zstd -T0 -q -o "{archive}"'])
    return parts


def warm(runner: Runner, archive: Path) -> dict[str, float]:
    runner.fresh()
    parts = {"key": runner.run("venv")}
    parts["restore"] = timed(["bash", "-c", f'zstd -dc -q "{archive}" | tar -xPf -'])
    parts["check"] = runner.run("Install averos-ci", **{"steps.cache.outputs.cache-hit": "true"})
    parts["plan"] = runner.run("run")
    return parts


def pip_baseline(runner: Runner, scratch: Path) -> dict[str, float]:
    """The install before uv and the cache: python -m venv + pip install, empty pip cache."""
    runner.fresh()
    venv, cache = runner.temp / "pip-venv", scratch / "caches" / "pip-baseline"
    shutil.rmtree(cache, ignore_errors=True)
    env = {**runner.base_env, "PIP_CACHE_DIR": str(cache)}
    parts = {"venv": timed([runner.context["inputs.python"], "-m", "venv", str(venv)], env=env)}
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", str(ROOT)]
    parts["pip install"] = timed(pip, env=env)
    return parts


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def measured(measure: Callable[[], dict[str, float]]) -> tuple[dict[str, float], float]:
    """The parts' wall times and the CPU time (user + system) of every process they ran."""
    before = children_cpu()
    parts = measure()
    return parts, children_cpu() - before


def report(title: str, runs: list[tuple[dict[str, float], float]]) -> float:
    """Print the medians; returns the median total."""
    print(f"{title} ({len(runs)} run{'s' if len(runs) > 1 else ''}, medians):")
    for part in runs[0][0]:
        print(f"  {part:<14} {statistics.median(r[part] for r, _ in runs):6.2f} s")
    total = statistics.median(sum(r.values()) for r, _ in runs)
    print(f"  {'total':<14} {total:6.2f} s")
    cpu = statistics.median(c for _, c in runs)
    print(f"  {'CPU':<14} {cpu:6.2f} s   (user + system of the steps' processes: the load of")
    print("                          other processes on the machine is not in it)")
    return total


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="one run each (CI: the bench works)")
    parser.add_argument("--pip-baseline", action="store_true")
    add_arguments(parser)
    args = parser.parse_args()
    runs = 1 if args.quick else args.runs
    figures = Figures("action_cold_start", quick=args.quick, scale=args.targets_scale)
    own_git_identity()
    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # one line per fake API request
    server = HTTPServer(host="127.0.0.1", port=0, threaded=True)
    server.start()
    fake = FakeGitHub(server)
    scratch = Path(tempfile.mkdtemp(prefix="averos-ci-bench-"))
    try:
        runner = Runner(scratch, world(scratch, fake))
        archive = scratch / "venv.tar.zst"
        measures: list[tuple[str, Callable[[], dict[str, float]], str | None]] = [
            (
                "cold: no cached environment, empty uv and pip caches",
                lambda: cold(runner, scratch, archive),
                "action_cold_start.cold_s",
            ),
            (
                "warm: the environment restored from the cache",
                lambda: warm(runner, archive),
                "action_cold_start.warm_s",
            ),
        ]
        if args.pip_baseline:
            measures.append(
                (
                    "before: venv + pip install, empty pip cache (no plan)",
                    lambda: pip_baseline(runner, scratch),
                    None,
                )
            )
        for title, measure, key in measures:
            total = report(title, [measured(measure) for _ in range(runs)])
            if key is not None:
                figures.check(key, total)
        print(f"  (environment archive: {archive.stat().st_size / 1e6:.1f} MB, tar + zstd)")
        assert fake.bot_comments(1), "the plan comment was not posted"
    finally:
        server.stop()
        shutil.rmtree(scratch, ignore_errors=True)
    return figures.exit_code()


if __name__ == "__main__":
    raise SystemExit(main())
