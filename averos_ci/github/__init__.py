"""The GitHub flow: plan comments on pull requests, permission-checked approval, apply on
merge, and the state branch."""

from averos_ci.github.api import API_VERSION, GitHubAPIError, GitHubClient, clip_body
from averos_ci.github.apply_flow import ApplyResult, apply_merge
from averos_ci.github.approve_flow import ApproveOutcome, approve
from averos_ci.github.context import FlowContext, open_context
from averos_ci.github.errors import ApplyRefused
from averos_ci.github.events import EventError, load_event
from averos_ci.github.flow import COMMANDS, run_github
from averos_ci.github.plan_flow import PlanOutcome, plan_pull_request
from averos_ci.github.settings import CommitWorkspace, GitHubSettings, Permission, load_settings
from averos_ci.github.state_branch import GitError, StateBranch

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
