"""The ``github`` object of ``averos.config.json``: how the GitHub flow behaves."""

from __future__ import annotations

import os
import re
from enum import StrEnum
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from pydantic.alias_generators import to_camel

from averos_ci._permission import Permission as Permission
from averos_ci._validation import first_problem
from averos_ci.errors import ConfigError

# GitHub rejects comment bodies above 65,536 characters; keep a margin for the frame.
GITHUB_COMMENT_LIMIT = 65_536
# A GitHub login (an app's bot account ends in ``[bot]``).
LOGIN_RE = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})(?:\[bot\])?")


class CommitWorkspace(StrEnum):
    DEFAULT_BRANCH = "default-branch"  # commit back; a pull request when the branch is protected
    NONE = "none"  # you keep the workspace yourself
    SAME_BRANCH = "same-branch"
    BRANCH = "branch"


class GitHubSettings(BaseModel):
    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="ignore", frozen=True
    )

    project: str | None = Field(
        default=None,
        description="The project's name in the state branch and in status contexts; default: "
        "the config file's folder relative to the repository root, or `default`.",
    )
    state_branch: str = Field(
        default="averos-state", description="The branch that holds the applied state."
    )
    remote: str = Field(default="origin", description="The git remote the branches live on.")
    approval_permission: Permission = Field(
        default=Permission.WRITE,
        description="The lowest repository permission whose approval counts "
        "(`read`, `triage`, `write`, `maintain`, `admin`).",
    )
    allow_self_approval: bool = Field(
        default=False,
        description="Whether a pull request's author may approve its plan (never an agent: "
        "see `agentIdentities`).",
    )
    allow_pusher_approval: bool = Field(
        default=False,
        description="Turns off the last-pusher rule: whoever pushed the head (the `sender` "
        "of its `synchronize` event) or authored a commit of the pull request cannot approve.",
    )
    plain_review_approvals: bool = Field(
        default=True,
        description="Whether a plain approving review (no `/averos approve <hash>` in its "
        "body) counts while the plan it was submitted on is unchanged; off: only pinned "
        "approvals count.",
    )
    commit_workspace: CommitWorkspace = Field(
        default=CommitWorkspace.DEFAULT_BRANCH,
        description="Where the generated workspace is kept after an apply "
        "(`default-branch`, `same-branch`, `branch`, `none`).",
    )
    workspace_branch: str = Field(
        default="averos-workspace",
        description="The branch the workspace is committed to with `commitWorkspace: branch`.",
    )
    max_comment_chars: int = Field(
        default=60_000,
        ge=2_000,
        le=GITHUB_COMMENT_LIMIT,
        description="The longest plan comment; a longer plan is cut (the job summary has it).",
    )
    status_context: str = Field(
        default="averos-ci/plan",
        min_length=1,
        max_length=100,
        description="The aggregate commit status to require; each project's is "
        "`<statusContext>/<project>`.",
    )
    bot_login: str = Field(
        default="github-actions[bot]",
        description="The token's own login, for tokens that cannot call `GET /user` (the "
        "Actions token): only its comments and statuses are the bot's.",
    )
    progress_interval_seconds: float = Field(
        default=5.0,
        ge=0,
        description=(
            "How often an apply pushes its checkpoints to the state branch (one try each: a "
            "push another project's job beat is left to the next one, and none is tried for a "
            "back-off after it or after a claim that other projects' jobs made wait; the final "
            "state always lands)."
        ),
    )
    push_attempts: int = Field(
        default=8,
        ge=1,
        le=50,
        description="How many times an apply re-plans when this project's own folder on the "
        "state branch moved during the claim.",
    )
    push_retry_seconds: float = Field(
        default=600.0,
        ge=0,
        le=3600,
        description="For how long a push rejected because other projects moved the state "
        "branch is re-applied on the new tip.",
    )
    push_backoff_seconds: float = Field(
        default=0.5,
        ge=0,
        le=60,
        description="The first back-off between those pushes (full-jitter exponential).",
    )
    push_backoff_max_seconds: float = Field(
        default=15.0, ge=0, le=300, description="The longest back-off between those pushes."
    )
    api_timeout_seconds: float = Field(
        default=30.0, gt=0, description="The timeout of one GitHub API request."
    )
    api_max_retries: int = Field(
        default=4,
        ge=0,
        le=10,
        description="Retries of a GitHub API request that failed with a retryable error.",
    )
    api_max_wait_seconds: float = Field(
        default=60.0,
        ge=0,
        description="The longest wait for a rate limit or a retry before giving up.",
    )
    agent_identities: list[str] = Field(
        default_factory=list,
        description="Logins an agent's token acts as (case-insensitive): their approvals "
        "never count, and a pull request they opened needs a person's approval, even with "
        "`allowSelfApproval`.",
    )

    @field_validator("agent_identities")
    @classmethod
    def _logins(cls, value: list[str]) -> list[str]:
        for login in value:
            if not LOGIN_RE.fullmatch(login):
                raise ValueError(f"{login!r} is not a GitHub login")
        return value


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
            hint="see docs/reference/configuration.md#github",
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
