"""Subprocess helpers: argument lists only (never a shell), isolated npm/Angular env."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

from averos_ci.execute.adapters import _children as children
from averos_ci.execute.adapters._env import scrubbed_env
from averos_ci.execute.contracts import ExecutionFailure

EXCERPT_CHARS = 4000


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
    """Run ``cmd``; append its output to ``log``; raise :class:`CommandFailed` on failure.

    ``track=(workspace, marker)`` runs it in its own process group recorded in the
    workspace, so that a run resumed after a SIGKILL can end it (see ``adapters._children``).
    """
    proc = subprocess.Popen(
        list(cmd),
        cwd=cwd,
        env=dict(env),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    if track is not None:
        children.record(track[0], proc.pid, track[1])
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        append_log(log, cmd, out, err, None)
        raise CommandFailed(cmd, None, out, err) from None
    finally:
        if track is not None:
            children.forget(track[0])
    append_log(log, cmd, out, err, proc.returncode)
    if proc.returncode != 0:
        raise CommandFailed(cmd, proc.returncode, out, err)
    return subprocess.CompletedProcess(list(cmd), proc.returncode, out, err)


def append_log(
    log: Path | None, cmd: Sequence[str], stdout: str, stderr: str, code: int | None
) -> None:
    if log is None:
        return
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("a", encoding="utf-8") as f:
        f.write(f"$ {' '.join(cmd)}\n{stdout}")
        if stderr:
            f.write(f"--- stderr ---\n{stderr}")
        f.write(f"--- exit code {code} ---\n")
