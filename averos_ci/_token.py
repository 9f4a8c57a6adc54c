"""The GitHub token lives in this process's memory only, never in a process environment.

Scrubbing ``os.environ`` is not enough: ``/proc/<pid>/environ`` shows the environment a process
was *started* with, readable by every process of the same user — every npm package and
schematic an apply runs. So when the token arrives in the environment (the composite action's
``env:``, a container action's ``INPUT_GITHUB-TOKEN``), :func:`isolate` re-executes the
process without it and hands the token over through a pipe, before any thread or child exists.
The action ``exec``\\ s averos-ci, so its shell step is not left behind as an ancestor holding it.
"""

from __future__ import annotations

import os
import sys
from collections.abc import MutableMapping, Sequence

TOKEN_VARS = ("GITHUB_TOKEN", "INPUT_GITHUB-TOKEN", "INPUT_GITHUB_TOKEN")
FD_VAR = "AVEROS_CI_TOKEN_FD"  # the read end of the pipe the token arrives through

_token: str | None = None


def take(environ: MutableMapping[str, str] | None = None) -> str | None:
    """Remove every token variable from ``environ`` (default: ``os.environ``); the token (the
    first one set), or ``None``."""
    env = os.environ if environ is None else environ
    found = [env.pop(name, "") for name in TOKEN_VARS]
    return next((t for t in found if t), None)


def current() -> str | None:
    """The token :func:`isolate` took for this process."""
    return _token


def isolate(argv: Sequence[str]) -> None:
    """Call first thing in ``main``: take the token over from a re-executed parent, or take it
    out of the environment and, if it was in the *initial* environment, re-execute ``python -m
    averos_ci argv`` without it (Linux; elsewhere there is no ``/proc`` to read it from)."""
    global _token
    fd = os.environ.pop(FD_VAR, None)
    if fd is not None:
        _token = _read_fd(fd)
        take()  # a token variable set again by a wrapper: not in *our* initial environment
        return
    token = _token = take()
    if token is None or not sys.platform.startswith("linux"):
        return
    if _initial_environ_holds(token):
        read, write = os.pipe()
        os.write(write, token.encode())  # far below the pipe buffer: never blocks
        os.close(write)
        os.set_inheritable(read, True)
        env = {**os.environ, FD_VAR: str(read)}
        sys.stdout.flush()
        sys.stderr.flush()
        os.execve(sys.executable, [sys.executable, "-m", "averos_ci", *argv], env)


def _initial_environ_holds(token: str) -> bool:
    try:
        with open(f"/proc/{os.getpid()}/environ", "rb") as f:
            return token.encode() in f.read()
    except OSError:
        return True  # cannot tell: assume it does


def _read_fd(fd: str) -> str | None:
    try:
        number = int(fd)
        chunks = []
        while chunk := os.read(number, 65536):
            chunks.append(chunk)
        os.close(number)
    except (ValueError, OSError):
        return None
    return b"".join(chunks).decode() or None
