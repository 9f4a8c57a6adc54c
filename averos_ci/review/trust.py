"""Who may approve is decided by the branch a pull request merges into, never by the PR.

The checked-out config of a ``push`` (the merge commit) or a ``pull_request_review`` (the PR's
merge ref) is the pull request's own: it could name itself the bot, allow self-approval or
lower the permission needed. So the approval rules (:data:`TRUSTED_FIELDS`) are re-read from
``averos.config.json`` as of the *base* commit — the push's ``before``, or the PR's
``base.sha`` — and the built-in defaults apply when the file does not exist there yet.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from averos_ci.config import CONFIG_FILE_NAME, load_config
from averos_ci.errors import ConfigError
from averos_ci.forge.context import FlowContext
from averos_ci.forge.settings import GitHubSettings, default_project
from averos_ci.policy.settings import load_policy

# Settings that decide whose approval counts, which comment is the bot's own, which status
# gates the merge and where the state lives and the workspace goes: the base branch's only.
TRUSTED_FIELDS = (
    "approval_permission",
    "allow_self_approval",
    "allow_pusher_approval",
    "bot_login",
    "status_context",
    "project",
    "state_branch",
    "remote",
    "commit_workspace",
    "workspace_branch",
    "plain_review_approvals",
    "agent_identities",
)


def _base_sections(
    ctx: FlowContext, base_sha: str | None
) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """The ``github`` and ``policy`` objects of the config at ``base_sha`` (empty: defaults)."""
    if not (base_sha and base_sha.strip("0")):
        return {}, None
    cfg = ctx.config.config_path
    if cfg is None:
        raise ConfigError("the GitHub flow needs a config file")
    try:
        rel = cfg.resolve().relative_to(ctx.repo_root).as_posix()
    except ValueError:
        raise ConfigError("the config file is outside the repository", path=cfg) from None
    raw = ctx.state_branch().read_commit_file(base_sha, rel)
    if raw is None:
        return {}, None
    with tempfile.TemporaryDirectory(prefix="averos-ci-base-") as tmp:
        path = Path(tmp) / (cfg.name or CONFIG_FILE_NAME)
        path.write_bytes(raw)
        try:
            base = load_config(path)
            GitHubSettings.model_validate(base.github or {})
            load_policy(base.policy, config_path=None)
        except (ConfigError, ValueError) as exc:
            raise ConfigError(
                f"{rel} at the base commit {base_sha[:12]} is invalid: {exc}",
                hint="the approval rules and the policy are read from the base branch's config",
            ) from None
    return base.github or {}, base.policy


def _trusted(ctx: FlowContext, github: dict[str, Any]) -> GitHubSettings:
    source = GitHubSettings.model_validate(github)
    if source.project is None:  # the same default as for this checkout's config path
        project = default_project(config_path=ctx.config.config_path, repo_root=ctx.repo_root)
        source = source.model_copy(update={"project": project})
    return ctx.settings.model_copy(update={f: getattr(source, f) for f in TRUSTED_FIELDS})


def base_settings(ctx: FlowContext, base_sha: str | None) -> GitHubSettings:
    """``ctx.settings`` with :data:`TRUSTED_FIELDS` as configured at ``base_sha``.

    No base (``None`` or the all-zero sha of a new branch) or no config file there: the
    built-in defaults. A base config that cannot be read or parsed fails (never the PR's).
    """
    return _trusted(ctx, _base_sections(ctx, base_sha)[0])


def trust_base(ctx: FlowContext, base_sha: str | None) -> list[str]:
    """Switch ``ctx`` to the approval rules of ``base_sha`` (see :func:`base_settings`);
    returns the keys this commit's config sets differently (they need an approval)."""
    github, policy = _base_sections(ctx, base_sha)
    settings = _trusted(ctx, github)
    changed = [
        GitHubSettings.model_fields[f].alias or f
        for f in TRUSTED_FIELDS
        if getattr(settings, f) != getattr(ctx.settings, f)
    ]
    # The policy gates the plan like the approval rules: the base branch's, never the PR's.
    if (policy or {}) != (ctx.config.policy or {}):
        changed.append("policy")
    ctx.policy = load_policy(policy, config_path=None)
    if changed:
        print(
            "approval rules are read from the base "
            f"{(base_sha or 'defaults')[:12]}; ignoring this commit's " + ", ".join(changed)
        )
    ctx.settings = settings
    ctx.reset_identity()
    return changed
