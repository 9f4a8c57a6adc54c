"""The GitHub flows: plan comments on pull requests, permission-checked approval, apply on
merge — thin use-cases over :mod:`averos_ci.forge` (GitHub itself), :mod:`averos_ci.review`
(the review rules) and :mod:`averos_ci.statebranch` (the git-backed store). The names below
are re-exported from those homes; nothing there imports this package.

They are imported on first use (PEP 562): a job imports the flow it runs (``averos_ci.github.
routes`` dispatches), not every flow of the package.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from averos_ci._lazy import lazy_exports

if TYPE_CHECKING:
    from averos_ci.forge.api import API_VERSION, GitHubAPIError, GitHubClient, clip_body
    from averos_ci.forge.context import FlowContext, open_context
    from averos_ci.forge.events import EventError, load_event
    from averos_ci.forge.settings import (
        CommitWorkspace,
        GitHubSettings,
        Permission,
        load_settings,
    )
    from averos_ci.github.apply_flow import apply_merge
    from averos_ci.github.apply_run import ApplyResult
    from averos_ci.github.approve_flow import ApproveOutcome, approve
    from averos_ci.github.plan_comment import PlanOutcome
    from averos_ci.github.plan_flow import plan_pull_request
    from averos_ci.github.routes import COMMANDS, run_github
    from averos_ci.statebranch.errors import ApplyRefused
    from averos_ci.statebranch.state_branch import GitError, StateBranch

__all__ = [
    "API_VERSION",
    "COMMANDS",
    "ApplyRefused",
    "ApplyResult",
    "ApproveOutcome",
    "CommitWorkspace",
    "EventError",
    "FlowContext",
    "GitError",
    "GitHubAPIError",
    "GitHubClient",
    "GitHubSettings",
    "Permission",
    "PlanOutcome",
    "StateBranch",
    "apply_merge",
    "approve",
    "clip_body",
    "load_event",
    "load_settings",
    "open_context",
    "plan_pull_request",
    "run_github",
]

_HOMES = {
    "API_VERSION": "averos_ci.forge.api",
    "GitHubAPIError": "averos_ci.forge.api",
    "GitHubClient": "averos_ci.forge.api",
    "clip_body": "averos_ci.forge.api",
    "FlowContext": "averos_ci.forge.context",
    "open_context": "averos_ci.forge.context",
    "EventError": "averos_ci.forge.events",
    "load_event": "averos_ci.forge.events",
    "CommitWorkspace": "averos_ci.forge.settings",
    "GitHubSettings": "averos_ci.forge.settings",
    "Permission": "averos_ci.forge.settings",
    "load_settings": "averos_ci.forge.settings",
    "apply_merge": "averos_ci.github.apply_flow",
    "ApplyResult": "averos_ci.github.apply_run",
    "ApproveOutcome": "averos_ci.github.approve_flow",
    "approve": "averos_ci.github.approve_flow",
    "COMMANDS": "averos_ci.github.routes",
    "run_github": "averos_ci.github.routes",
    "PlanOutcome": "averos_ci.github.plan_comment",
    "plan_pull_request": "averos_ci.github.plan_flow",
    "ApplyRefused": "averos_ci.statebranch.errors",
    "GitError": "averos_ci.statebranch.state_branch",
    "StateBranch": "averos_ci.statebranch.state_branch",
}


__getattr__, __dir__ = lazy_exports(__name__, _HOMES, globals(), __all__)
