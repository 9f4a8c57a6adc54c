"""The GitHub Actions environment: what the runner tells a step, and what a step tells back
(step outputs, the job summary, masks)."""

from __future__ import annotations

import os
import sys
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from averos_ci._actions import add_mask
from averos_ci._actions import annotate as annotate
from averos_ci._token import (
    KEY_VARS,
    PUSH_VARS,
    TOKEN_VARS,
    current_key,
    current_push,
    take_key,
    take_push,
)
from averos_ci._token import current as current_token
from averos_ci._token import take as take_token
from averos_ci.errors import InputError


@dataclass(frozen=True)
class ActionsEnv:
    event_name: str
    event_path: Path
    repository: str
    api_url: str = "https://api.github.com"
    server_url: str = "https://github.com"
    sha: str | None = None
    ref: str | None = None
    output: Path | None = None
    step_summary: Path | None = None
    token: str | None = field(default=None, repr=False)
    state_key: str | None = field(default=None, repr=False)  # authenticates state-branch progress
    # only for pushing the generated commit to the default branch (an App the ruleset bypasses)
    push_token: str | None = field(default=None, repr=False)
    run_id: str | None = None
    run_attempt: str | None = None
    workspace: Path | None = None
    under_actions: bool = False

    @property
    def run_url(self) -> str | None:
        if not self.run_id:
            return None
        return f"{self.server_url}/{self.repository}/actions/runs/{self.run_id}"

    @classmethod
    def from_environ(cls, environ: Mapping[str, str] | None = None) -> ActionsEnv:
        env = os.environ if environ is None else environ
        missing = [
            k
            for k in ("GITHUB_EVENT_NAME", "GITHUB_EVENT_PATH", "GITHUB_REPOSITORY")
            if not env.get(k)
        ]
        if missing:
            raise InputError(
                f"not in a GitHub Actions job: {', '.join(missing)} not set",
                hint="run inside GitHub Actions, or set these variables "
                "(see docs/reference/github-action.md#environment)",
            )

        def path(name: str) -> Path | None:
            value = env.get(name)
            return Path(value) if value else None

        if environ is None:  # out of the process environment, into memory only
            token = take_token() or current_token()
            state_key = take_key() or current_key()
            push_token = take_push() or current_push()
        else:
            token = next((env[k] for k in TOKEN_VARS if env.get(k)), None)
            state_key = next((env[k] for k in KEY_VARS if env.get(k)), None)
            push_token = next((env[k] for k in PUSH_VARS if env.get(k)), None)
        return cls(
            event_name=env["GITHUB_EVENT_NAME"],
            event_path=Path(env["GITHUB_EVENT_PATH"]),
            repository=env["GITHUB_REPOSITORY"],
            api_url=env.get("GITHUB_API_URL") or "https://api.github.com",
            server_url=env.get("GITHUB_SERVER_URL") or "https://github.com",
            sha=env.get("GITHUB_SHA") or None,
            ref=env.get("GITHUB_REF") or None,
            output=path("GITHUB_OUTPUT"),
            step_summary=path("GITHUB_STEP_SUMMARY"),
            token=token,
            state_key=state_key,
            push_token=push_token,
            run_id=env.get("GITHUB_RUN_ID") or None,
            run_attempt=env.get("GITHUB_RUN_ATTEMPT") or None,
            workspace=path("GITHUB_WORKSPACE"),
            under_actions=env.get("GITHUB_ACTIONS") == "true",
        )

    def mask_token(self) -> None:
        """Ask the runner to mask the tokens (and the state key) in every later log line."""
        for secret in (self.token, self.state_key, self.push_token):
            if secret and self.under_actions:
                add_mask(secret)
        sys.stdout.flush()


class StepReport:
    """Collects step outputs and job-summary markdown; writes them where the runner reads."""

    def __init__(self, env: ActionsEnv) -> None:
        self.env = env
        self.outputs: dict[str, str] = {}
        self.summary: list[str] = []

    def set(self, **values: object) -> None:
        for key, value in values.items():
            text = str(value).lower() if isinstance(value, bool) else str(value)
            self.outputs[key.replace("_", "-")] = text

    def add_summary(self, markdown: str) -> None:
        self.summary.append(markdown)

    def flush(self) -> None:
        if self.env.output is not None and self.outputs:
            with self.env.output.open("a", encoding="utf-8") as f:
                for key, value in self.outputs.items():
                    if "\n" in value:
                        delim = f"averos_ci_{uuid.uuid4().hex}"
                        f.write(f"{key}<<{delim}\n{value}\n{delim}\n")
                    else:
                        f.write(f"{key}={value}\n")
        if self.env.step_summary is not None and self.summary:
            with self.env.step_summary.open("a", encoding="utf-8") as f:
                f.write("\n\n".join(self.summary) + "\n")
        self.outputs.clear()
        self.summary.clear()
