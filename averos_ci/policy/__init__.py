"""Policy: a pure function of (plan, settings) → violations and approval requirements."""

from averos_ci.policy.evaluate import PolicyResult, Requirement, Violation, evaluate_policy
from averos_ci.policy.render import render_policy_markdown, render_policy_text
from averos_ci.policy.settings import (
    PermissionLevel,
    PolicySettings,
    ProtectedElement,
    load_policy,
)

__all__ = [
    "PermissionLevel",
    "PolicyResult",
    "PolicySettings",
    "ProtectedElement",
    "Requirement",
    "Violation",
    "evaluate_policy",
    "load_policy",
    "render_policy_markdown",
    "render_policy_text",
]
