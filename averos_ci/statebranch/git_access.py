"""Access to the repository and its remote: opening it, the commit identity, and handing a
token to git's credential helper through a pipe (never through the environment or argv)."""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path
from typing import Any

import git

from averos_ci.errors import AverosCIError, ExitCode
from averos_ci.statebranch import git_credential
from averos_ci.statebranch.git_credential import FD_VAR as CREDENTIAL_FD_VAR

HELPER = str(Path(git_credential.__file__).resolve())

BOT_NAME = "averos-ci"
BOT_EMAIL = "41898282+github-actions[bot]@users.noreply.github.com"


class GitError(AverosCIError):
    """A git operation on the repository or its remote failed (exit 1)."""

    exit_code = ExitCode.FAILED


def open_repo(path: Path) -> git.Repo:
    try:
        return git.Repo(path, search_parent_directories=True)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        raise GitError(
            f"{path} is not inside a git repository",
            hint="check out the repository first (actions/checkout)",
        ) from None


def identity_env(repo: git.Repo) -> dict[str, str]:
    """Commit identity: the environment's or the repository's, else the Actions bot."""
    env: dict[str, str] = {}
    for role in ("AUTHOR", "COMMITTER"):
        for key, conf, default in (
            ("NAME", "user.name", BOT_NAME),
            ("EMAIL", "user.email", BOT_EMAIL),
        ):
            var = f"GIT_{role}_{key}"
            if os.environ.get(var):
                continue
            try:
                value = str(repo.git.config("--get", conf)).strip()
            except git.GitCommandError:
                value = ""
            env[var] = value or default
    return env


def token_auth_env(
    repo: git.Repo, remote: str, *, token: str | None, server_url: str
) -> dict[str, str]:
    """Configure git (checkout with ``persist-credentials: false``) to ask the averos-ci
    credential helper for the GitHub server's credentials, through ``GIT_CONFIG_*`` variables
    that hold no secret: the helper gets the token from :class:`CredentialGit` through a pipe.
    Nothing when the checkout already persisted credentials or the remote is not on that
    server."""
    if not token:
        return {}
    try:
        url = str(repo.git.remote("get-url", remote)).strip()
    except git.GitCommandError:
        return {}
    prefix = server_url.rstrip("/") + "/"
    if not url.startswith(prefix):
        return {}
    try:
        if str(repo.git.config("--get-all", f"http.{prefix}.extraheader")).strip():
            return {}
    except git.GitCommandError:
        pass
    helper = "!" + " ".join(shlex.quote(a) for a in (sys.executable, "-I", "-S", HELPER))
    key = f"credential.{prefix}.helper"
    return {
        "GIT_CONFIG_COUNT": "2",
        "GIT_CONFIG_KEY_0": key,
        "GIT_CONFIG_VALUE_0": "",  # no other helper answers for this server
        "GIT_CONFIG_KEY_1": key,
        "GIT_CONFIG_VALUE_1": helper,
        "GIT_TERMINAL_PROMPT": "0",  # a refused token fails; it never waits for a prompt
    }


class CredentialGit(git.Git):
    """GitPython's command runner that hands the token to git's credential helper through
    a pipe: a fresh one per network command, inherited by that command alone (``pass_fds``)
    and drained by the helper's first read. The token is never in a process environment
    (``/proc/<pid>/environ``) or on a command line, where any same-user process could read
    it."""

    NETWORK = frozenset({"fetch", "ls-remote", "push", "pull"})

    def __init__(self, working_dir: str | os.PathLike[str] | None, token: str) -> None:
        super().__init__(working_dir)
        self._averos_token = token

    def execute(  # type: ignore[override]
        self, command: Any, istream: Any = None, **kwargs: Any
    ) -> Any:
        args = [str(a) for a in command] if isinstance(command, list | tuple) else []
        sub = next((a for a in args[1:] if not a.startswith("-")), None)
        if sub not in self.NETWORK:
            return super().execute(command, istream, **kwargs)
        read, write = os.pipe()
        try:
            os.write(write, self._averos_token.encode())  # far below the pipe buffer
            os.close(write)
            write = -1
            env = {**(kwargs.pop("env", None) or {}), CREDENTIAL_FD_VAR: str(read)}
            fds = (*kwargs.pop("pass_fds", ()), read)
            as_process = kwargs.pop("as_process", False)
            extended = kwargs.pop("with_extended_output", False)
            checked = kwargs.pop("with_exceptions", True)
            proc = super().execute(
                command, istream, env=env, pass_fds=fds, as_process=True, **kwargs
            )
            os.close(read)  # git holds its own copy now: ours goes before the command runs
            read = -1
            if as_process:  # the caller reads the output (Remote.push)
                return proc
            out, err = proc.proc.communicate()
            status = proc.proc.returncode
            if checked and status != 0:
                raise git.GitCommandError(args, status, err, out)
            text = (out.decode("utf-8", "replace") if isinstance(out, bytes) else out).rstrip("\n")
            if not extended:
                return text
            error = err.decode("utf-8", "replace") if isinstance(err, bytes) else err
            return status, text, error.rstrip("\n")
        finally:
            if read >= 0:
                os.close(read)
            if write >= 0:
                os.close(write)
