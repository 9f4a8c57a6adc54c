"""The test World's preloaded job runner (tests/github/job_server.py): a job forked from the
zygote gives what the same job gives as a fresh interpreter, sees only its own environment and
directory, and a crash or a timeout ends it as ``subprocess.run`` would."""

from __future__ import annotations

import ast
import base64
import json
import os
import re
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from averos_ci._token import TOKEN_VARS
from tests.github import job_server
from tests.github.gh_fake import TOKEN, FakeGitHub, running_fake
from tests.github.gh_world import CLI, REPO_ROOT, JobResult, World, make_world, manifest_variant

pytestmark = pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="needs Linux /proc")


@pytest.fixture(autouse=True)
def _runner_on(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests are about the forked path: on even where the suite runs jobs the old way."""
    monkeypatch.delenv(job_server.MODE_VAR, raising=False)


def forked(run: Any) -> Any:
    """``run()``, checking that the runner served it from the zygote."""
    before = job_server.forked
    result = run()
    assert job_server.forked == before + 1, "the job ran as a subprocess, not forked"
    return result


def plan_in(world: World) -> tuple[JobResult, list[str]]:
    """PR 1's plan job in ``world``: its result and the bot's comments (each world's commits
    have their own ids: written ``HEAD`` and ``BASE``)."""
    head = world.commit("feature", {"todoapp.manifest.yaml": manifest_variant(2)}, "two more")
    world.fake.add_pull(1, author="alice", head_sha=head, head_ref="feature")
    r = world.run("pull_request", world.pr_event("opened", 1), head, command="plan")
    ids = {head: "HEAD", str(world.fake.base_sha): "BASE"}

    def same(text: str) -> str:
        for sha, name in ids.items():
            text = text.replace(sha, name)
        return re.sub(r"[A-Za-z0-9+/=]{60,}", decoded, text)

    def decoded(blob: re.Match[str]) -> str:  # the comment's metadata: base64 JSON
        try:
            return same(base64.b64decode(blob[0], validate=True).decode())
        except ValueError:
            return blob[0]

    r = JobResult(
        r.code,
        same(r.stdout),
        same(r.stderr),
        {k: same(v) for k, v in r.outputs.items()},
        same(r.summary),
    )
    return r, [same(str(c["body"])) for c in world.fake.bot_comments(1)]


@pytest.fixture
def other_fake() -> Iterator[FakeGitHub]:
    with running_fake() as fake:
        yield fake


def test_a_forked_job_gives_what_a_fresh_interpreter_gives(
    tmp_path: Path, fake: FakeGitHub, other_fake: FakeGitHub
) -> None:
    (tmp_path / "fork").mkdir()
    (tmp_path / "exec").mkdir()
    fork_world = make_world(tmp_path / "fork", fake)
    exec_world = make_world(tmp_path / "exec", other_fake, fork_jobs=False)
    by_fork, fork_comments = forked(lambda: plan_in(fork_world))
    by_exec, exec_comments = plan_in(exec_world)
    assert by_fork.code == by_exec.code == 0, by_fork.stderr + by_exec.stderr
    assert by_fork.outputs == by_exec.outputs
    assert by_fork.outputs["plan-hash"]
    assert by_fork.summary == by_exec.summary != ""
    assert fork_comments == exec_comments != []
    assert (by_fork.stdout, by_fork.stderr) == (by_exec.stdout, by_exec.stderr)


def test_a_failing_job_fails_the_same_way(tmp_path: Path, fake: FakeGitHub) -> None:
    world = make_world(tmp_path, fake)
    sha = world.branch_sha("main")
    assert sha is not None
    checkout = world.checkout(sha)
    env = world.job_env("push", world.push_event(sha), checkout, sha)
    Path(env["GITHUB_EVENT_PATH"]).write_text("{not json", encoding="utf-8")
    by_fork = forked(lambda: world.job("auto", checkout, env, timeout=120))
    world.fork_jobs = False
    by_exec = world.job("auto", checkout, env, timeout=120)
    assert by_fork.code == by_exec.code != 0
    assert by_fork.stderr == by_exec.stderr != ""
    assert by_fork.stdout == by_exec.stdout


def test_a_job_past_its_timeout_is_killed_and_the_next_job_runs(
    tmp_path: Path, fake: FakeGitHub
) -> None:
    world = make_world(tmp_path, fake)
    with socket.socket() as silent:  # accepts connections (the backlog), never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        sha = world.branch_sha("main")
        assert sha is not None
        checkout = world.checkout(sha)
        env = world.job_env("push", world.push_event(sha), checkout, sha)
        env["GITHUB_API_URL"] = f"http://127.0.0.1:{silent.getsockname()[1]}"
        with pytest.raises(subprocess.TimeoutExpired) as raised:
            world.job("auto", checkout, env, timeout=3)
    assert raised.value.timeout == 3
    assert raised.value.cmd == [*CLI, "github", "auto"]
    r = forked(lambda: probe(tmp_path, {}))
    assert r["cwd"] == str(tmp_path)


def probe(cwd: Path, extra: dict[str, str]) -> dict[str, Any]:
    env = {**os.environ, "RUNNER_TEMP": str(cwd), **extra}
    assert job_server.forkable(env)
    proc = job_server.run_forked(
        [*CLI, "github", "probe"],
        cwd=cwd,
        env=env,
        timeout=60,
        entry="tests.github.job_server:probe",
    )
    assert proc.returncode == 0, proc.stderr
    data: dict[str, Any] = json.loads(proc.stdout)
    return data


def test_each_job_has_its_own_environment_directory_and_standard_streams(
    tmp_path: Path,
) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir()
    two.mkdir()
    first = forked(lambda: probe(one, {"AVEROS_CI_JOB_ONLY": "first"}))
    second = forked(lambda: probe(two, {}))
    assert first["environ"]["AVEROS_CI_JOB_ONLY"] == "first"
    assert "AVEROS_CI_JOB_ONLY" not in second["environ"]
    assert (first["cwd"], second["cwd"]) == (str(one), str(two))
    assert second["argv"] == ["-c", "github", "probe"]  # as `python -c ... github probe`
    assert second["stdin"] == ""  # /dev/null
    assert second["gc"] is True
    assert second["threads"] == 1


def test_the_token_is_taken_out_of_the_environment_and_never_was_in_the_initial_one(
    tmp_path: Path,
) -> None:
    seen = forked(lambda: probe(tmp_path, {"GITHUB_TOKEN": TOKEN}))
    assert seen["token"] == TOKEN
    assert not set(TOKEN_VARS) & set(seen["environ"])
    assert TOKEN not in seen["initial_environ"]  # /proc/<pid>/environ: the zygote's
    later = forked(lambda: probe(tmp_path, {}))
    assert later["token"] is None


def test_averos_ci_reads_no_environment_variable_at_import_time() -> None:
    """A forked job inherits what its modules decided when the zygote imported them: a
    module-level read of the environment would see the zygote's, not the job's."""

    class Reads(ast.NodeVisitor):
        def __init__(self) -> None:
            self.found: list[int] = []

        def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
            # decorators and defaults run at import; the body when called
            for expr in (*node.decorator_list, *node.args.defaults, *node.args.kw_defaults):
                if expr is not None:
                    self.visit(expr)

        visit_AsyncFunctionDef = visit_FunctionDef

        def visit_Lambda(self, node: ast.Lambda) -> None:
            pass

        def visit_Attribute(self, node: ast.Attribute) -> None:
            if ast.unparse(node) in ("os.environ", "os.getenv", "os.environb"):
                self.found.append(node.lineno)
            self.generic_visit(node)

        def visit_Name(self, node: ast.Name) -> None:
            if node.id in ("environ", "getenv"):
                self.found.append(node.lineno)

    found = {}
    for path in sorted((REPO_ROOT / "averos_ci").rglob("*.py")):
        reads = Reads()
        reads.visit(ast.parse(path.read_text(encoding="utf-8")))
        if reads.found:
            found[str(path.relative_to(REPO_ROOT))] = reads.found
    assert found == {}
