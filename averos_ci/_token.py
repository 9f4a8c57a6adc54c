"""The GitHub token (and the state key) live in this process's memory only, never in a process
environment.

Scrubbing ``os.environ`` is not enough: ``/proc/<pid>/environ`` shows the environment a process
was *started* with, readable by every process of the same user — every npm package and
schematic an apply runs. So when the token arrives in the environment (the composite action's
``env:``, a container action's ``INPUT_GITHUB-TOKEN``), :func:`isolate` re-executes the
process without it and hands the token over through a pipe, before any thread or child exists.
The optional state key (``AVEROS_CI_STATE_KEY``, the action's ``state-key`` input; it
authenticates progress on the state branch, :mod:`averos_ci.statebranch.seal`) is handled the same
way: a child that could read it could forge progress. So is the optional push token
(``AVEROS_CI_PUSH_TOKEN``, the action's ``push-token`` input): a GitHub App's installation
token that the default branch's ruleset lets through, used only to push the generated commit
there (:mod:`averos_ci.github.commit_back`).
The action ``exec``\\ s averos-ci, so its shell step is not left behind as an ancestor holding it.

The re-executed interpreter never has the working directory on its import path (``-P``;
``-I`` when this one was isolated): ``python -m`` would put it first, and the working
directory is a checkout of the pull request — a ``typer.py`` at its root would run inside
averos-ci and read the secrets from the pipe.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import MutableMapping, Sequence

TOKEN_VARS = ("GITHUB_TOKEN", "INPUT_GITHUB-TOKEN", "INPUT_GITHUB_TOKEN")
KEY_VARS = ("AVEROS_CI_STATE_KEY", "INPUT_STATE-KEY", "INPUT_STATE_KEY")
PUSH_VARS = ("AVEROS_CI_PUSH_TOKEN", "INPUT_PUSH-TOKEN", "INPUT_PUSH_TOKEN")
FD_VAR = "AVEROS_CI_TOKEN_FD"  # the read end of the pipe the secrets arrive through
MAX_SECRET = 16_384  # the secrets together stay far below a pipe's buffer: never blocks

_token: str | None = None
_key: str | None = None
_push: str | None = None


def take(
    environ: MutableMapping[str, str] | None = None, names: Sequence[str] = TOKEN_VARS
) -> str | None:
    """Remove every variable of ``names`` (default: the token's) from ``environ`` (default:
    ``os.environ``); the first value set, or ``None``."""
    env = os.environ if environ is None else environ
    found = [env.pop(name, "") for name in names]
    return next((t for t in found if t), None)


def take_key(environ: MutableMapping[str, str] | None = None) -> str | None:
    """:func:`take` for the state key."""
    return take(environ, KEY_VARS)


def take_push(environ: MutableMapping[str, str] | None = None) -> str | None:
    """:func:`take` for the push token."""
    return take(environ, PUSH_VARS)


def current() -> str | None:
    """The token :func:`isolate` took for this process."""
    return _token


def current_key() -> str | None:
    """The state key :func:`isolate` took for this process."""
    return _key


def current_push() -> str | None:
    """The push token :func:`isolate` took for this process."""
    return _push


def isolate(argv: Sequence[str]) -> None:
    """Call first thing in ``main``: take the secrets over from a re-executed parent, or take
    them out of the environment and, if one was in the *initial* environment, re-execute
    ``python -P -m averos_ci argv`` without them (Linux; elsewhere there is no ``/proc`` to read
    them from)."""
    global _token, _key, _push
    fd = os.environ.pop(FD_VAR, None)
    if fd is not None:
        _token, _key, _push = _read_fd(fd)
        take()  # a variable set again by a wrapper: not in *our* initial environment
        take_key()
        take_push()
        _register(_token, _key, _push)  # scrubbed from logs in every form
        return
    _token, _key, _push = take(), take_key(), take_push()
    _register(_token, _key, _push)
    secrets = [s for s in (_token, _key, _push) if s]
    if not secrets or not sys.platform.startswith("linux"):
        return
    if any(_initial_environ_holds(s) for s in secrets):
        payload = json.dumps({"token": _token, "stateKey": _key, "pushToken": _push}).encode()
        if len(payload) > MAX_SECRET:
            raise SystemExit("averos-ci: the token, state key or push token is too long")
        read, write = os.pipe()
        os.write(write, payload)
        os.close(write)
        os.set_inheritable(read, True)
        env = {**os.environ, FD_VAR: str(read)}
        sys.stdout.flush()
        sys.stderr.flush()
        python = [sys.executable, *_interpreter_flags()]
        os.execve(sys.executable, [*python, "-m", "averos_ci", *argv], env)


def _register(*secrets: str | None) -> None:
    if any(secrets):  # without one, the scrubber (html, shlex, urllib) is not even imported
        from averos_ci import _secrets

        _secrets.register(*secrets)


def _interpreter_flags() -> list[str]:
    """This interpreter's import settings, without the working directory on ``sys.path``."""
    if sys.flags.isolated:
        return ["-I"]
    flags = ["-P"]  # never prepend the working directory (Python 3.11+)
    if sys.flags.ignore_environment:
        flags.append("-E")
    if sys.flags.no_user_site:
        flags.append("-s")
    if sys.flags.no_site:
        flags.append("-S")
    return flags


def _initial_environ_holds(token: str) -> bool:
    try:
        with open(f"/proc/{os.getpid()}/environ", "rb") as f:
            return token.encode() in f.read()
    except OSError:
        return True  # cannot tell: assume it does


def _read_fd(fd: str) -> tuple[str | None, str | None, str | None]:
    try:
        number = int(fd)
        chunks = []
        while chunk := os.read(number, 65536):
            chunks.append(chunk)
        os.close(number)
        data = json.loads(b"".join(chunks))
    except (ValueError, OSError):
        return None, None, None
    if not isinstance(data, dict):
        return None, None, None
    return data.get("token") or None, data.get("stateKey") or None, data.get("pushToken") or None
