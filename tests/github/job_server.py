"""A preloaded job runner for the test World (issue 25): one "zygote" process per pytest
worker imports averos-ci once, then forks a child per job that runs the CLI exactly as
``python -c "from averos_ci.cli import main; main()" github <command>`` would.

A job started with ``subprocess`` pays the interpreter's start and averos-ci's imports (typer,
pydantic models, httpx, rich...: 0.4-1 s of CPU) and the GitHub tests run hundreds of jobs; a
forked child starts with all of that done. What a fresh process would decide for itself, the
child decides again: its environment is replaced wholesale by the job's, it changes into the
job's directory, fds 0/1/2 become /dev/null and the job's stdout and stderr files, ``sys.argv``
has the ``-c`` shape, and it leaves through the interpreter's own exit steps (threads joined,
``atexit``, streams flushed) with the CLI's exit code.

What a fork cannot redo is decided from the zygote's own environment at import time (typer reads
``GITHUB_ACTIONS`` and ``FORCE_COLOR``, the interpreter ``PYTHON*`` and the locale): the zygote
is started with the job's environment minus what differs between jobs (:data:`PER_JOB`), and a
job whose other variables differ from the zygote's runs the old way (:func:`forkable`). The
secrets (:mod:`averos_ci._token`) are never in the zygote's environment, so the child's
``/proc/<pid>/environ`` does not hold them and ``isolate`` takes them from ``os.environ``
without re-executing, as a fresh process would when they were not in its initial environment.
The request (the job's environment, secrets included) does pass through the zygote's memory:
tests that read the memory or the ``/proc`` of a job's ancestors run the exec way
(``World(fork_jobs=False)``).

``AVEROS_CI_WORLD_JOBS=exec`` runs every job the old way.

Protocol: JSON lines on the zygote's stdin (one request: argv, cwd, env, stdout and stderr file
paths), two JSON lines back on its stdout per job: ``{"pid": N}`` after the fork, then
``{"returncode": R}`` (negative: killed by that signal, as ``Popen.returncode``).
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from averos_ci._token import FD_VAR, KEY_VARS, PUSH_VARS, TOKEN_VARS

REPO_ROOT = Path(__file__).resolve().parents[2]
CLI_MAIN = "averos_ci.cli:main"
MODE_VAR = "AVEROS_CI_WORLD_JOBS"  # "exec": every job is a subprocess, as before
SECRETS = (*TOKEN_VARS, *KEY_VARS, *PUSH_VARS, FD_VAR)
# Variables that differ from job to job and that nothing reads at import time (averos-ci reads
# the environment only when called: tests/github/test_job_server.py keeps it so).
# GITHUB_ACTIONS is not one of them: typer decides its terminal from it at import.
PER_JOB_PREFIXES = ("GITHUB_", "RUNNER_", "INPUT_", "AVEROS_CI_", "GIT_")
IMPORT_TIME = ("GITHUB_ACTIONS", "GIT_PYTHON_GIT_EXECUTABLE", "GIT_PYTHON_REFRESH")
PER_JOB_NAMES = ("HOME", "PYTEST_CURRENT_TEST", *SECRETS)
# What the ``github`` jobs of tests/github/test_gh_catchup.py imported, in a quarter of them at
# least (the modules the flows load lazily included); ``AVEROS_CI_WORLD_JOBS_MODULES=FILE``
# appends, after each forked job, the modules it loaded: how this list was made. A module
# missing here is imported by the job itself, as a fresh process would.
PRELOAD = (
    "averos_ci._actions",
    "averos_ci._fs",
    "averos_ci._model",
    "averos_ci._permission",
    "averos_ci._secrets",
    "averos_ci._suggest",
    "averos_ci.source.syntax",
    "averos_ci._token",
    "averos_ci._validation",
    "averos_ci.cli._app",
    "averos_ci.cli.github",
    "averos_ci.config",
    "averos_ci.config_check",
    "averos_ci.errors",
    "averos_ci.execute.adapters",
    "averos_ci.execute.adapters._options",
    "averos_ci.execute.adapters.contract",
    "averos_ci.execute.adapters.identity",
    "averos_ci.execute.adapters.mock",
    "averos_ci.execute.adapters.mock_files",
    "averos_ci.execute.adapters.registry",
    "averos_ci.execute.apply",
    "averos_ci.execute.attempts",
    "averos_ci.execute.averos_checkpoints",
    "averos_ci.execute.averos_logs",
    "averos_ci.execute.applied",
    "averos_ci.execute.checkpoints",
    "averos_ci.execute.console",
    "averos_ci.execute.contracts",
    "averos_ci.execute.events",
    "averos_ci.execute.heartbeat",
    "averos_ci.execute.hints",
    "averos_ci.execute.listeners",
    "averos_ci.execute.logs",
    "averos_ci.execute.regen.generate",
    "averos_ci.execute.regen.merge",
    "averos_ci.execute.regen.patching",
    "averos_ci.execute.regen.tree",
    "averos_ci.execute.runner",
    "averos_ci.execute.scheduler",
    "averos_ci.execute.signals",
    "averos_ci.execute.summary",
    "averos_ci.forge.actions_env",
    "averos_ci.forge.api",
    "averos_ci.forge.rest",
    "averos_ci.forge.protocol",
    "averos_ci.forge.context",
    "averos_ci.forge.events",
    "averos_ci.forge.settings",
    "averos_ci.github.apply_flow",
    "averos_ci.github.apply_run",
    "averos_ci.github.apply_step",
    "averos_ci.github.approve_flow",
    "averos_ci.github.base_execution",
    "averos_ci.github.catchup",
    "averos_ci.github.commit_back",
    "averos_ci.github.complete_flow",
    "averos_ci.github.fork_flow",
    "averos_ci.github.merge_group_flow",
    "averos_ci.github.aggregate_gate_flow",
    "averos_ci.github.patch_flow",
    "averos_ci.github.patch_result",
    "averos_ci.github.plan_comment",
    "averos_ci.github.plan_flow",
    "averos_ci.github.recomputed",
    "averos_ci.github.routes",
    "averos_ci.manifest.issues",
    "averos_ci.manifest.normalize",
    "averos_ci.manifest.report",
    "averos_ci.manifest.rules",
    "averos_ci.manifest.shape",
    "averos_ci.manifest.validate",
    "averos_ci.plan.attributes",
    "averos_ci.plan.canonical",
    "averos_ci.plan.diff",
    "averos_ci.plan.elements",
    "averos_ci.plan.execution_diff",
    "averos_ci.plan.items",
    "averos_ci.plan.loaded_files",
    "averos_ci.plan.mermaid",
    "averos_ci.plan.model",
    "averos_ci.plan.not_applied",
    "averos_ci.plan.patch",
    "averos_ci.plan.planner",
    "averos_ci.plan.render",
    "averos_ci.plan.render_markdown",
    "averos_ci.plan.repairs",
    "averos_ci.plan.sensitive",
    "averos_ci.planning",
    "averos_ci.planning.run",
    "averos_ci.planning.service",
    "averos_ci.planning.sources",
    "averos_ci.policy.evaluate",
    "averos_ci.policy.render",
    "averos_ci.policy.settings",
    "averos_ci.projects.changed",
    "averos_ci.projects.selection",
    "averos_ci.projects.discover",
    "averos_ci.projects.output",
    "averos_ci.report.junit",
    "averos_ci.report.job_summary",
    "averos_ci.report.policy_junit",
    "averos_ci.report.summary_json",
    "averos_ci.review.approval_check",
    "averos_ci.review.approvals",
    "averos_ci.review.approver",
    "averos_ci.review.pins",
    "averos_ci.review.comment",
    "averos_ci.review.project_status",
    "averos_ci.review.merge_group",
    "averos_ci.review.outdated",
    "averos_ci.review.plan_status",
    "averos_ci.review.policy_check",
    "averos_ci.review.pushers",
    "averos_ci.review.records",
    "averos_ci.review.trust",
    "averos_ci.source",
    "averos_ci.state.averos_compat",
    "averos_ci.state.drift",
    "averos_ci.state.fingerprint",
    "averos_ci.state.guard",
    "averos_ci.state.model",
    "averos_ci.state.store",
    "averos_ci.statebranch.claim",
    "averos_ci.statebranch.errors",
    "averos_ci.statebranch.git_access",
    "averos_ci.statebranch.git_credential",
    "averos_ci.statebranch.history",
    "averos_ci.statebranch.keep",
    "averos_ci.statebranch.landing",
    "averos_ci.statebranch.progress",
    "averos_ci.statebranch.project_state",
    "averos_ci.statebranch.restore",
    "averos_ci.statebranch.seal",
    "averos_ci.statebranch.state_branch",
    "averos_ci.statebranch.workspace",
    "anyio",
    "certifi",
    "encodings.idna",
    "git",
    "h11",
    "httpcore",
    "httpx",
    "junit_xml",
    "pwd",
    "pydantic",
    "rich",
    "ruamel.yaml",
    "ruamel.yaml.composer",
    "typer",
    "typer._adapters",
    "wcmatch.glob",
    "xml.dom.expatbuilder",
)


def per_job(name: str) -> bool:
    """``name`` may differ between the zygote's environment and a job's."""
    if name in IMPORT_TIME:
        return False
    return name in PER_JOB_NAMES or name.startswith(PER_JOB_PREFIXES)


def static_env(env: Mapping[str, str]) -> dict[str, str]:
    """The part of ``env`` that a forked job shares with the zygote."""
    return {k: v for k, v in env.items() if not per_job(k)}


def exec_forced() -> bool:
    return os.environ.get(MODE_VAR, "").strip().lower() == "exec"


# -- the client (in the pytest worker) ------------------------------------------------------


@dataclass
class Zygote:
    proc: subprocess.Popen[bytes]
    env: dict[str, str]  # its static environment
    spool: Path  # where the jobs' stdout and stderr files are written
    _pending: bytes = b""  # read, not yet returned

    @classmethod
    def start(cls, env: Mapping[str, str]) -> Zygote:
        static = static_env(env)
        proc = subprocess.Popen(
            [sys.executable, "-c", "from tests.github.job_server import serve; serve()"],
            cwd=REPO_ROOT,
            env=static,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        zygote = cls(proc, static, Path(tempfile.mkdtemp(prefix="averos-ci-jobs-")))
        zygote._read()  # {"ready": true}: the imports are done
        return zygote

    def alive(self) -> bool:
        return self.proc.poll() is None

    def stop(self) -> None:
        if self.alive():
            assert self.proc.stdin is not None
            self.proc.stdin.close()  # EOF: the zygote leaves its loop
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        shutil.rmtree(self.spool, ignore_errors=True)

    def _read(self, timeout: float | None = None) -> dict[str, Any]:
        """The next reply; ``TimeoutError`` when none came within ``timeout`` seconds. Read
        unbuffered: a reply sitting in a file object's buffer would not wake ``select``."""
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        deadline = None if timeout is None else time.monotonic() + timeout
        while b"\n" not in self._pending:
            if deadline is not None:
                ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
                if not ready:
                    raise TimeoutError
            chunk = os.read(fd, 65536)
            if not chunk:
                raise RuntimeError(f"the job zygote died (exit {self.proc.wait()})")
            self._pending += chunk
        line, _, self._pending = self._pending.partition(b"\n")
        data: dict[str, Any] = json.loads(line)
        return data

    def run(
        self,
        argv: Sequence[str],
        *,
        cwd: Path,
        env: Mapping[str, str],
        stdout: Path,
        stderr: Path,
        timeout: float,
        entry: str,
    ) -> tuple[int, bool]:
        """Run one job; its exit code and whether it was killed for taking over ``timeout``."""
        request = {
            "argv": list(argv),
            "entry": entry,
            "cwd": str(cwd),
            "env": dict(env),
            "stdout": str(stdout),
            "stderr": str(stderr),
        }
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(json.dumps(request).encode() + b"\n")
            self.proc.stdin.flush()
            pid = int(self._read()["pid"])
            try:
                return int(self._read(timeout)["returncode"]), False
            except TimeoutError:
                # not reaped before the zygote's waitpid, which answers below: still the job's pid
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
                return int(self._read()["returncode"]), True
        except BaseException:
            # A reply left unread (a Ctrl-C, an error) would answer the next job: this zygote
            # is done, and the next job starts another.
            self.proc.kill()
            self.proc.wait()
            raise


_zygote: Zygote | None = None
forked = 0  # jobs this worker ran in a fork (the runner's tests check theirs were)
_lock = threading.Lock()  # a test may run jobs from threads: one request at a time


def forkable(env: Mapping[str, str]) -> bool:
    """A job with ``env`` can be forked from this worker's zygote (started on first use)."""
    global _zygote
    if exec_forced() or not sys.platform.startswith("linux"):
        return False
    with _lock:
        if _zygote is None or not _zygote.alive():
            _zygote = Zygote.start(env)
            atexit.register(_zygote.stop)
        static = static_env(env)
        if static != _zygote.env and os.environ.get("AVEROS_CI_WORLD_JOBS_DEBUG"):
            diff = sorted(
                k for k in static.keys() | _zygote.env.keys() if static.get(k) != _zygote.env.get(k)
            )
            print(f"job_server: exec, differs: {diff}", file=sys.stderr)
        return static == _zygote.env


def run_forked(
    argv: Sequence[str],
    *,
    cwd: Path,
    env: Mapping[str, str],
    timeout: float,
    entry: str = CLI_MAIN,
) -> subprocess.CompletedProcess[str]:
    """``subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True,
    timeout=timeout)`` for ``argv`` = ``[*CLI, *args]``, served by the zygote (call
    :func:`forkable` first). ``entry``: the ``module:function`` the child calls instead of
    averos-ci's ``main`` (the runner's own tests: :func:`probe`)."""
    global forked
    assert _zygote is not None
    with _lock:  # the spool files are this job's until read
        forked += 1
        out, err = _zygote.spool / f"{forked}.stdout", _zygote.spool / f"{forked}.stderr"
        code, killed = _zygote.run(
            argv[argv.index("-c") + 2 :],
            entry=entry,
            cwd=cwd,
            env=env,
            stdout=out,
            stderr=err,
            timeout=timeout,
        )
        stdout, stderr = _text(out), _text(err)
        out.unlink()
        err.unlink()
    if killed:
        raise subprocess.TimeoutExpired(list(argv), timeout, output=stdout, stderr=stderr)
    return subprocess.CompletedProcess(list(argv), code, stdout, stderr)


def _text(path: Path) -> str:
    """What ``subprocess`` with ``text=True`` makes of the bytes: the locale's encoding,
    universal newlines."""
    import locale

    data = path.read_bytes().decode(locale.getpreferredencoding(False))
    return data.replace("\r\n", "\n").replace("\r", "\n")


# -- the zygote --------------------------------------------------------------------------------


def serve() -> None:
    """The zygote's loop: import, then fork a child per request until stdin closes."""
    import gc
    import importlib

    requests = os.fdopen(os.dup(0), "rb")
    replies = os.fdopen(os.dup(1), "wb")
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)  # a stray print of an import must not break the protocol
    os.close(null)
    for name in PRELOAD:
        importlib.import_module(name)
    from averos_ci.forge.api import tls_context

    tls_context()  # the CA bundle, loaded once (~40 ms a job): a job with other trust makes its own
    gc.collect()
    gc.freeze()  # the imported modules: never traversed again, nor copied by the children
    _reply(replies, {"ready": True})
    for line in requests:
        request = json.loads(line)
        if threading.active_count() != 1:
            raise SystemExit("job zygote: a thread was started; a fork would copy it half-done")
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            requests.close()
            replies.close()
            _child(request)  # never returns
        _reply(replies, {"pid": pid})
        _, status = os.waitpid(pid, 0)
        _reply(replies, {"returncode": os.waitstatus_to_exitcode(status)})


def _reply(replies: IO[bytes], data: dict[str, Any]) -> None:
    replies.write(json.dumps(data).encode() + b"\n")
    replies.flush()


def _child(request: dict[str, Any]) -> None:
    code = 1
    try:
        _redirect(0, os.devnull, os.O_RDONLY)
        _redirect(1, request["stdout"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
        _redirect(2, request["stderr"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
        os.environ.clear()  # putenv/unsetenv too: the job's own children see the job's env
        os.environ.update(request["env"])
        os.chdir(request["cwd"])
        time.tzset()
        sys.argv = ["-c", *request["argv"]]
        code = _main(request["entry"])
    finally:
        os._exit(code)


def _redirect(fd: int, path: str, flags: int) -> None:
    opened = os.open(path, flags, 0o666)
    os.dup2(opened, fd)
    os.close(opened)


def _main(entry: str) -> int:
    """``main()`` and the interpreter's exit: the exit code ``python -c`` would have."""
    import importlib
    import traceback

    try:
        module, _, function = entry.partition(":")
        getattr(importlib.import_module(module), function)()
        code = 0
    except SystemExit as exc:
        code = _exit_code(exc.code)
    except BaseException:
        traceback.print_exc()
        code = 1
    shutdown = getattr(threading, "_shutdown", None)
    if shutdown is not None:
        shutdown()  # non-daemon threads are joined, as at the end of an interpreter
    atexit._run_exitfuncs()
    if os.environ.get("AVEROS_CI_WORLD_JOBS_MODULES"):
        with open(os.environ["AVEROS_CI_WORLD_JOBS_MODULES"], "a", encoding="utf-8") as f:
            f.write(" ".join(sorted(sys.modules)) + "\n")
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            code = code or 120  # what the interpreter returns when it cannot flush stdout
    return code


def _exit_code(value: object) -> int:
    """The exit status of ``SystemExit(value)``, as the interpreter computes it."""
    if value is None:
        return 0
    if isinstance(value, int):
        return value & 0xFF
    print(value, file=sys.stderr)
    return 1


def probe() -> None:
    """What a job sees of its process, as JSON on stdout (the runner's tests): started as
    averos-ci's ``main`` starts, with :func:`averos_ci._token.isolate`."""
    import gc

    from averos_ci import _token

    _token.isolate(sys.argv[1:])
    with open(f"/proc/{os.getpid()}/environ", "rb") as f:
        initial = f.read().decode("utf-8", "replace")
    print(
        json.dumps(
            {
                "argv": sys.argv,
                "cwd": os.getcwd(),
                "environ": dict(os.environ),
                "initial_environ": initial,
                "token": _token.current(),
                "stdin": sys.stdin.read(),
                "gc": gc.isenabled(),
                "threads": threading.active_count(),
            }
        )
    )
