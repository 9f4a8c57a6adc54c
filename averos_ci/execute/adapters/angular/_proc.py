"""Subprocess helpers: argument lists only (never a shell), isolated npm/Angular env."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextvars import ContextVar
from pathlib import Path
from typing import IO, NoReturn

from averos_ci.execute.adapters import _children as children
from averos_ci.execute.adapters._env import scrubbed_env
from averos_ci.execute.contracts import ExecutionFailure

EXCERPT_CHARS = 4000
# Descriptors every command started in this thread inherits (see :func:`holding`).
_HELD: ContextVar[tuple[int, ...]] = ContextVar("held", default=())


def tool_env(cache_dir: Path, *, registry: str | None = None) -> dict[str, str]:
    """Environment for node/npm/ng: npm's cache under our cache dir, no prompts, no analytics.

    npm and the Angular CLI would otherwise write into ``$HOME`` (``~/.npm``,
    ``~/.angular-config.json``); CI runners and the test-suite forbid that.
    """
    env = scrubbed_env()
    env.update(
        {
            "npm_config_cache": str(cache_dir / "npm"),
            "npm_config_update_notifier": "false",
            "npm_config_fund": "false",
            "npm_config_audit": "false",
            "npm_config_yes": "true",
            "NG_CLI_ANALYTICS": "false",
            "NG_CLI_ANALYTICS_SHARE": "false",
            "NG_FORCE_TTY": "false",
            "CI": env.get("CI", "true") or "true",
        }
    )
    if registry:
        env["npm_config_registry"] = registry
    return env


def excerpt(text: str, limit: int = EXCERPT_CHARS) -> str:
    text = text.strip()
    if len(text) <= limit:
        return text
    half = limit // 2
    return f"{text[:half]}\n[... {len(text) - limit} characters omitted ...]\n{text[-half:]}"


def describe(cmd: Sequence[str], returncode: int | None, stdout: str, stderr: str) -> str:
    code = "timed out" if returncode is None else f"exit code {returncode}"
    return (
        f"command: {' '.join(cmd)}\n{code}\n"
        f"--- stdout ---\n{excerpt(stdout)}\n--- stderr ---\n{excerpt(stderr)}"
    )


class CommandFailed(Exception):
    def __init__(self, cmd: Sequence[str], returncode: int | None, stdout: str, stderr: str):
        self.cmd = list(cmd)
        self.returncode = returncode
        self.stdout = stdout
        self.stderr = stderr
        super().__init__(describe(cmd, returncode, stdout, stderr))

    def failure(self, code: str, message: str) -> ExecutionFailure:
        return ExecutionFailure(code=code, message=message, details=str(self))


def run(
    cmd: Sequence[str],
    *,
    cwd: Path,
    env: Mapping[str, str],
    timeout: float,
    log: Path | None = None,
    track: tuple[Path, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run ``cmd``; stream its output into ``log`` line by line as it comes (the console shows
    a long command's last line from there); raise :class:`CommandFailed` on failure.

    It runs in its own process group, live in ``adapters._children`` while it runs: an abort
    ends it (:func:`_abandoned` says what follows), an exception here (Ctrl-C) too.
    ``track=(workspace, marker)`` also records the group in the workspace, so that a run
    resumed after a SIGKILL can end it.
    """
    sink = _LogSink(log, cmd)
    held = children.HeldSignals()
    try:
        proc = subprocess.Popen(
            list(cmd),
            cwd=cwd,
            env=dict(env),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            errors="replace",
            start_new_session=True,
            pass_fds=_HELD.get(),
        )
    except BaseException:
        held.release()
        raise
    timed_out = False
    try:
        with children.live(proc.pid, short(cmd)) as group:
            held.release()  # a signal received meanwhile acts now: the command is live
            if track is not None:
                children.record(track[0], proc.pid, track[1])
            assert proc.stdout is not None and proc.stderr is not None
            readers = [sink.follow(proc.stdout), sink.follow(proc.stderr)]
            try:
                proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                timed_out = True
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
    except BaseException:  # KeyboardInterrupt: never leave the group running
        try:
            children.end_group(proc.pid)
            _reap(proc)
        finally:
            held.release()
        raise
    finally:
        if track is not None:
            children.forget(track[0])
    if group.ended:
        _abandoned()
    out, err = (reader.result() for reader in readers)
    code = None if timed_out else proc.returncode
    sink.close(code)
    if code != 0:
        raise CommandFailed(cmd, code, out, err)
    return subprocess.CompletedProcess(list(cmd), code, out, err)


def _reap(proc: subprocess.Popen[str]) -> None:
    """Collect the ended ``proc`` without ``Popen.wait``: a KeyboardInterrupt landing in
    ``Popen.wait(timeout)`` just after it took its internal lock leaves that lock held, and
    another ``wait`` would then block forever."""
    if proc.returncode is not None:
        return
    try:
        _, status = os.waitpid(proc.pid, 0)
    except ChildProcessError:  # collected already
        return
    proc.returncode = os.waitstatus_to_exitcode(status)


@contextlib.contextmanager
def holding(fd: int) -> Iterator[None]:
    """Every command this thread starts in the block inherits ``fd`` (e.g. a locked file: the
    lock stays held while any of them, or any process they start, runs)."""
    token = _HELD.set((*_HELD.get(), fd))
    try:
        yield
    finally:
        _HELD.reset(token)


def short(cmd: Sequence[str]) -> str:
    """``npm ci``, ``node ng.js new``: how a notice names a command."""
    words = [Path(arg).name for arg in cmd if not arg.startswith("-")]
    return " ".join(words[:3])


def _abandoned() -> NoReturn:
    """See :func:`averos_ci.execute.adapters._children.abandoned`."""
    children.abandoned()


class _Reader:
    def __init__(self, stream: IO[str], sink: _LogSink) -> None:
        self.lines: list[str] = []
        self._thread = threading.Thread(target=self._pump, args=(stream, sink), daemon=True)
        self._thread.start()

    def _pump(self, stream: IO[str], sink: _LogSink) -> None:
        with stream:
            for line in stream:
                self.lines.append(line)
                sink.write(line)

    def result(self) -> str:
        self._thread.join()
        return "".join(self.lines)


class _LogSink:
    """The command's log: ``$ cmd``, its output lines as they come, ``--- exit code N ---``."""

    def __init__(self, log: Path | None, cmd: Sequence[str]) -> None:
        self._lock = threading.Lock()
        self._file: IO[str] | None = None
        if log is not None:
            log.parent.mkdir(parents=True, exist_ok=True)
            self._file = log.open("a", encoding="utf-8")
            self.write(f"$ {' '.join(cmd)}\n")

    def follow(self, stream: IO[str]) -> _Reader:
        return _Reader(stream, self)

    def write(self, text: str) -> None:
        if self._file is None:
            return
        with self._lock:
            self._file.write(text if text.endswith("\n") else text + "\n")
            self._file.flush()

    def close(self, code: int | None) -> None:
        if self._file is not None:
            self.write(f"--- exit code {code} ---\n")
            self._file.close()
