"""The ``github`` object of ``averos.config.json``: how the GitHub flow behaves."""

from __future__ import annotations

import os
from enum import StrEnum
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic.alias_generators import to_camel

from averos_ci._permission import Permission as Permission
from averos_ci._validation import first_problem
from averos_ci.errors import ConfigError

# GitHub rejects comment bodies above 65,536 characters; keep a margin for the frame.
GITHUB_COMMENT_LIMIT = 65_536


class CommitWorkspace(StrEnum):
    DEFAULT_BRANCH = "default-branch"  # commit back; a pull request when the branch is protected
    NONE = "none"  # you keep the workspace yourself
    SAME_BRANCH = "same-branch"
    BRANCH = "branch"


class GitHubSettings(BaseModel):
    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="ignore", frozen=True
    )

    project: str | None = None  # default: config dir relative to the repo root, or "default"
    state_branch: str = "averos-state"
    remote: str = "origin"
    approval_permission: Permission = Permission.WRITE
    allow_self_approval: bool = False
    # The last-pusher rule (averos_ci.review.pushers): off only when this is true.
    allow_pusher_approval: bool = False
    # A plain approving review (no ``/averos approve <hash>`` in its body) counts when the
    # plan has not changed since it was submitted (averos_ci.review.approvals); off: only
    # pinned approvals count.
    plain_review_approvals: bool = True
    commit_workspace: CommitWorkspace = CommitWorkspace.DEFAULT_BRANCH
    workspace_branch: str = "averos-workspace"
    max_comment_chars: int = Field(default=60_000, ge=2_000, le=GITHUB_COMMENT_LIMIT)
    # The token's own login. The Actions token cannot call GET /user, so it falls back to this.
    status_context: str = Field(default="averos-ci/plan", min_length=1, max_length=100)
    bot_login: str = "github-actions[bot]"
    progress_interval_seconds: float = Field(default=5.0, ge=0)
    # Re-plans when this project's own folder on the state branch moved during the claim.
    push_attempts: int = Field(default=8, ge=1, le=50)
    # A push rejected because other projects' jobs moved the state branch is re-applied on
    # the new tip (averos_ci.statebranch.landing): full-jitter exponential back-off from
    # pushBackoffSeconds up to pushBackoffMaxSeconds, for at most pushRetrySeconds.
    push_retry_seconds: float = Field(default=600.0, ge=0, le=3600)
    push_backoff_seconds: float = Field(default=0.5, ge=0, le=60)
    push_backoff_max_seconds: float = Field(default=15.0, ge=0, le=300)
    api_timeout_seconds: float = Field(default=30.0, gt=0)
    api_max_retries: int = Field(default=4, ge=0, le=10)
    api_max_wait_seconds: float = Field(default=60.0, ge=0)


KNOWN_KEYS = frozenset(f.alias or n for n, f in GitHubSettings.model_fields.items())


def load_settings(
    raw: dict[str, Any], *, config_path: Path | None, repo_root: Path | None = None
) -> tuple[GitHubSettings, tuple[str, ...]]:
    """Parse ``config.github``; unknown keys are warnings. Fills in the default project name."""
    where = str(config_path) if config_path else "averos.config.json"
    try:
        settings = GitHubSettings.model_validate(raw or {})
    except ValidationError as exc:
        raise ConfigError(
            str(first_problem(exc, prefix=("github",))),
            path=where,
            hint="see 'Settings' in the README",
        ) from None
    warnings = tuple(
        f"{where}: warning CFG-02 unknown key 'github.{key}'"
        for key in (raw or {})
        if key not in KNOWN_KEYS
    )
    if settings.project is None:
        settings = settings.model_copy(
            update={"project": default_project(config_path=config_path, repo_root=repo_root)}
        )
    _check_name(settings.project or "", "/github/project", where)
    _check_name(settings.state_branch, "/github/stateBranch", where, ref=True)
    _check_name(settings.workspace_branch, "/github/workspaceBranch", where, ref=True)
    _check_name(settings.remote, "/github/remote", where, ref=True)  # never an option to git
    return settings, warnings


def default_project(*, config_path: Path | None, repo_root: Path | None) -> str:
    if config_path is None or repo_root is None:
        return "default"
    try:
        rel = config_path.resolve().parent.relative_to(repo_root.resolve())
    except ValueError:
        return "default"
    return rel.as_posix() if rel.parts else "default"


def _check_name(value: str, pointer: str, where: str, *, ref: bool = False) -> None:
    bad = (
        not value
        or value.startswith(("/", "-", "."))
        or ".." in value
        or "\\" in value
        or any(c.isspace() or ord(c) < 32 for c in value)
        or any(c in value for c in "~^:?*[<>|\"'`$")
        or value.endswith(("/", ".lock"))
        or (ref and "@{" in value)
    )
    if bad or os.path.isabs(value):
        raise ConfigError(
            f"{pointer}: {value!r} is not a safe {'branch' if ref else 'project'} name",
            path=where,
            hint="use letters, digits, '-', '_', '.' and '/' separators",
        )
