"""Which GitHub repository the server talks to, with which token — and git, run safely.

The token comes from the environment the CLI reads (``GITHUB_TOKEN``, taken out of it at start
by :mod:`averos_ci._token`); it only ever goes into the API client's ``Authorization`` header
and is scrubbed from every message a tool returns.
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from averos_ci.errors import InputError

_GITHUB_REMOTE = re.compile(r"github\.com[:/]([^/\s]+/[^/\s]+?)(?:\.git)?/?$")


@dataclass(frozen=True)
class Remote:
    repository: str | None  # owner/name
    api_url: str
    token: str | None = field(repr=False)

    @classmethod
    def from_environment(cls, root: Path) -> Remote:
        from averos_ci import _token

        token = _token.current() or _token.take()  # the CLI isolated it; Python callers: env
        repository = os.environ.get("GITHUB_REPOSITORY") or _origin_repository(root)
        api_url = os.environ.get("GITHUB_API_URL") or "https://api.github.com"
        return cls(repository, api_url, token)

    @property
    def configured(self) -> bool:
        return bool(self.token and self.repository)

    def require(self) -> tuple[str, str]:
        if not self.token:
            raise InputError(
                "no GitHub token: set GITHUB_TOKEN in the MCP server's environment",
                hint="a fine-grained token with contents:write and pull-requests:write on "
                "this repository; never a token that may approve (see docs/mcp.md)",
            )
        if not self.repository:
            raise InputError(
                "no GitHub repository: origin is not a github.com remote",
                hint="set GITHUB_REPOSITORY=owner/name in the MCP server's environment",
            )
        return self.token, self.repository

    def scrub(self, text: str) -> str:
        return text.replace(self.token, "***") if self.token else text


def _origin_repository(root: Path) -> str | None:
    url = git(root, "remote", "get-url", "origin", check=False).stdout.strip()
    match = _GITHUB_REMOTE.search(url)
    return match.group(1) if match else None


class GitFailed(InputError):
    """A git command the tool needed failed (its stderr is in the message)."""


def git(
    root: Path,
    *args: str,
    check: bool = True,
    env: dict[str, str] | None = None,
    scrub: Remote | None = None,
) -> subprocess.CompletedProcess[str]:
    """``git -C root args``: no pager, no prompt (an agent cannot answer one)."""
    full_env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", **(env or {})}
    proc = subprocess.run(
        ["git", "-C", str(root), "-c", "core.pager=cat", *args],
        capture_output=True,
        text=True,
        check=False,
        env=full_env,
        timeout=300,
    )
    if check and proc.returncode != 0:
        stderr = proc.stderr.strip() or proc.stdout.strip() or "no message"
        if scrub is not None:
            stderr = scrub.scrub(stderr)
        raise GitFailed(f"git {args[0]} failed (exit {proc.returncode}): {stderr[-1500:]}")
    return proc
