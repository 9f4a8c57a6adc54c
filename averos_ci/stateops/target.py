"""The target of an operator command (``averos-ci state …``): the state branch and project
of a config in a local clone, as its ``github`` settings name them; or, for a local project
(no remote to fetch a state branch from, or ``--local``), the config's own state file."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from averos_ci.config import CONFIG_FILE_NAME, RunConfig, load_config
from averos_ci.errors import AverosCIError
from averos_ci.forge.settings import load_settings
from averos_ci.statebranch.state_branch import GitError, StateBranch, open_repo
from averos_ci.stateops.operation import StateTarget


def open_target(
    *,
    config_path: str | Path | None = None,
    project: str | None = None,
    environ: Mapping[str, str] | None = None,
) -> StateTarget:
    """The state branch and project of a config in a local clone (the ``github`` settings).
    Credentials: git's own, or a token (``GITHUB_TOKEN``) handed to git the way the flow does,
    through the environment only."""
    from averos_ci._token import current as current_token
    from averos_ci._token import take as take_token

    env = os.environ if environ is None else environ
    config = load_config(config_path or _default_config())
    repo_root = Path(open_repo(config.base_dir).working_tree_dir or config.base_dir).resolve()
    raw = dict(config.github or {})
    if project is not None:
        raw["project"] = project
    settings, _warnings = load_settings(raw, config_path=config.config_path, repo_root=repo_root)
    token = (take_token() if environ is None else None) or current_token()
    sb = StateBranch(
        repo_root,
        remote=settings.remote,
        branch=settings.state_branch,
        token=token,
        server_url=env.get("GITHUB_SERVER_URL") or "https://github.com",
    )
    return StateTarget(sb, settings.project or "default", config, settings.push_attempts, repo_root)


def local_config(*, config_path: str | Path | None = None, local: bool = False) -> RunConfig | None:
    """The config when its project is operated on its own state file: ``local``, or its
    repository has no remote of the ``github.remote`` name (nothing to fetch a state branch
    from); ``None``: a state-branch project (:func:`open_target`)."""
    try:
        repo = open_repo(Path(config_path).parent if config_path else Path.cwd())
    except GitError:
        repo = None  # not a git repository: only the state file, no history
    if config_path is None:
        root = Path(repo.working_tree_dir or Path.cwd()) if repo is not None else Path.cwd()
        config_path = root / CONFIG_FILE_NAME
    config = load_config(config_path)
    if local or repo is None:
        return config
    remote = str((config.github or {}).get("remote") or "origin")
    if remote not in {r.name for r in repo.remotes}:
        return config
    # A remote without the state branch (none fetched) while the state file holds a state: a
    # local project whose repository is pushed somewhere (GitLab, a backup), as init judges
    # it, not a state-branch project (a CI checkout holds no state file: it is ignored there).
    try:
        settings, _warnings = load_settings(
            dict(config.github or {}), config_path=config.config_path, repo_root=config.base_dir
        )
        branch = settings.state_branch
    except AverosCIError:  # settings the state-branch path reports itself
        return None
    tracking = f"refs/remotes/{remote}/{branch}"
    if config.state_path.is_file() and tracking not in {r.path for r in repo.refs}:
        return config
    return None


def _default_config() -> Path:
    root = Path(open_repo(Path.cwd()).working_tree_dir or Path.cwd())
    return root / CONFIG_FILE_NAME
