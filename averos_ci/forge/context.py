"""Everything one ``averos-ci github …`` invocation works with, built once from the
Actions environment and the config file."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from averos_ci.config import CONFIG_FILE_NAME, RunConfig, load_config
from averos_ci.forge.actions_env import ActionsEnv, StepReport, annotate
from averos_ci.forge.api import GitHubClient
from averos_ci.forge.settings import GitHubSettings, load_settings
from averos_ci.policy.settings import PolicySettings
from averos_ci.statebranch.state_branch import StateBranch, open_repo


@dataclass
class FlowContext:
    env: ActionsEnv
    config: RunConfig
    settings: GitHubSettings
    repo_root: Path
    client: GitHubClient
    report: StepReport
    # The base branch's policy (averos_ci.review.trust sets it before any gate is checked).
    policy: PolicySettings = field(default_factory=PolicySettings)
    _bot_login: str | None = field(default=None, repr=False)

    @property
    def project(self) -> str:
        return self.settings.project or "default"

    def bot_login(self) -> str:
        """The token's own identity: GET /user, or the configured bot login for app tokens."""
        if self._bot_login is None:
            self._bot_login = self.client.authenticated_login() or self.settings.bot_login
        return self._bot_login

    def reset_identity(self) -> None:
        """Forget the cached identity (the settings that name it changed)."""
        self._bot_login = None

    def state_branch(self) -> StateBranch:
        return self.branch(self.settings.state_branch)

    def branch(self, name: str) -> StateBranch:
        return StateBranch(
            self.repo_root,
            remote=self.settings.remote,
            branch=name,
            token=self.env.token,
            server_url=self.env.server_url,
        )

    def close(self) -> None:
        self.client.close()


def open_context(
    *,
    config_path: str | Path | None = None,
    environ: Mapping[str, str] | None = None,
    transport: httpx.BaseTransport | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> FlowContext:
    env = ActionsEnv.from_environ(environ)
    env.mask_token()
    start = env.workspace if env.workspace and env.workspace.is_dir() else Path.cwd()
    if config_path is None:
        repo_root = Path(open_repo(start).working_tree_dir or start)
        config_path = repo_root / CONFIG_FILE_NAME
    config = load_config(config_path)
    repo_root = Path(open_repo(config.base_dir).working_tree_dir or config.base_dir).resolve()
    settings, warnings = load_settings(
        config.github, config_path=config.config_path, repo_root=repo_root
    )
    for warning in (*config.warnings, *warnings):
        annotate("warning", warning)
    return FlowContext(
        env=env,
        config=config,
        settings=settings,
        repo_root=repo_root,
        client=api_client(env, settings, transport=transport, sleep=sleep),
        report=StepReport(env),
    )


def api_client(
    env: ActionsEnv,
    settings: GitHubSettings,
    *,
    transport: httpx.BaseTransport | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> GitHubClient:
    """The REST client of a job: the event's repository, the settings' timeouts and retries."""
    return GitHubClient(
        token=env.token,
        repository=env.repository,
        api_url=env.api_url,
        timeout=settings.api_timeout_seconds,
        max_retries=settings.api_max_retries,
        max_wait=settings.api_max_wait_seconds,
        transport=transport,
        sleep=sleep,
    )
