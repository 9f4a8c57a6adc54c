"""The GitHub flows: plan comments on pull requests, permission-checked approval, apply on
merge — thin use-cases over :mod:`averos_ci.forge` (GitHub itself), :mod:`averos_ci.review`
(the review rules) and :mod:`averos_ci.statebranch` (the git-backed store). The names below
are re-exported from those homes; nothing there imports this package."""

from averos_ci.forge.api import API_VERSION, GitHubAPIError, GitHubClient, clip_body
from averos_ci.forge.context import FlowContext, open_context
from averos_ci.forge.events import EventError, load_event
from averos_ci.forge.settings import CommitWorkspace, GitHubSettings, Permission, load_settings
from averos_ci.github.apply_flow import apply_merge
from averos_ci.github.apply_step import ApplyResult
from averos_ci.github.approve_flow import ApproveOutcome, approve
from averos_ci.github.flow import COMMANDS, run_github
from averos_ci.github.plan_flow import PlanOutcome, plan_pull_request
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
