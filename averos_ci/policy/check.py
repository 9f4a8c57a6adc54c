"""The policy step of the local ``plan`` command: evaluate, render, and fail on violation."""

from __future__ import annotations

import sys
from dataclasses import dataclass

from averos_ci.config import RunConfig
from averos_ci.errors import RunFailed
from averos_ci.plan.model import ExecutionPlan
from averos_ci.policy.evaluate import PolicyResult, evaluate_policy
from averos_ci.policy.render import render_policy_markdown, render_policy_text
from averos_ci.policy.settings import load_policy


class PolicyViolated(RunFailed):
    """``plan --policy`` found violations (exit 1)."""


@dataclass(frozen=True)
class PolicyVerdict:
    result: PolicyResult
    configured: bool

    def section(self, output_format: str) -> str:
        """Appended to text and markdown plans; JSON plans keep their schema (the verdict
        goes to stderr instead)."""
        if output_format == "text":
            return render_policy_text(self.result)
        if output_format == "markdown":
            return render_policy_markdown(self.result)
        return ""

    def report(self, *, fail: bool) -> None:
        for v in self.result.violations:
            print(f"policy: {v.rule}: {v.message}", file=sys.stderr)
        if not self.configured:
            print("policy: no 'policy' section in the config: nothing to check", file=sys.stderr)
        if fail and self.result.violations:
            raise PolicyViolated(
                f"the plan violates the policy ({len(self.result.violations)} violation(s): "
                f"{', '.join(v.rule for v in self.result.violations)})",
                hint="change the manifest so the plan complies, or change 'policy' in the "
                "config on the base branch",
            )


def check_policy(plan: ExecutionPlan, *, cfg: RunConfig) -> PolicyVerdict:
    settings = load_policy(cfg.policy, config_path=cfg.config_path)
    return PolicyVerdict(evaluate_policy(plan, settings), configured=cfg.policy is not None)
