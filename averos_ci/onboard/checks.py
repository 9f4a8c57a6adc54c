"""The checks of ``averos-ci doctor``: each reads one setting and says pass, fail (with the
fix) or unknown ("cannot check — verify by hand", when the token may not read it)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

from averos_ci.onboard.checklist import ENVIRONMENT, STATE_KEY_SECRET
from averos_ci.onboard.settings_api import Hidden, Read, SettingsReader
from averos_ci.onboard.workflow_rules import (
    averos_steps,
    load_workflow,
    missing_local_actions,
    problems,
)

ACTIONS_SETTINGS = "Settings → Actions → General → Workflow permissions"
RULES_SETTINGS = "Settings → Rules → Rulesets (or Settings → Branches)"
ENV_SETTINGS = f"Settings → Environments → {ENVIRONMENT}"


class Status(StrEnum):
    PASS = "pass"
    FAIL = "fail"
    UNKNOWN = "unknown"  # the token may not read it: verify by hand; never counted as a pass


@dataclass(frozen=True)
class Check:
    id: str
    status: Status
    detail: str
    fix: str = ""


@dataclass(frozen=True)
class Setup:
    root: Path
    branch: str
    state_branch: str
    status_context: str


def hidden(check_id: str, reply: Hidden, by_hand: str) -> Check:
    why = f"HTTP {reply.status}" + (f" {reply.message}" if reply.message else "")
    return Check(check_id, Status.UNKNOWN, f"cannot check ({why}) — verify by hand: {by_hand}")


def workflow_permissions(api: SettingsReader, setup: Setup) -> Check:
    by_hand = f"{ACTIONS_SETTINGS}: 'Allow GitHub Actions to create and approve pull requests'"
    reply = api.workflow_permissions()
    if isinstance(reply, Hidden):
        return hidden("workflow-permissions", reply, by_hand)
    data = _dict(reply)
    default = data.get("default_workflow_permissions")
    if data.get("can_approve_pull_request_reviews") is True:
        detail = f"Actions may create pull requests (default token: {default})"
        return Check("workflow-permissions", Status.PASS, detail)
    return Check(
        "workflow-permissions",
        Status.FAIL,
        "GitHub Actions may not create pull requests: the apply cannot open the pull request "
        f"with the generated application when '{setup.branch}' is protected",
        f"{by_hand}: tick it",
    )


def _rules(api: SettingsReader, branch: str) -> tuple[set[str], bool, set[str]] | Hidden:
    """(required status contexts, pull request required, other rule types) from rulesets."""
    reply = api.branch_rules(branch)
    if isinstance(reply, Hidden):
        return reply
    rules = [r for r in reply.data if isinstance(r, dict)] if isinstance(reply.data, list) else []
    types = {str(r.get("type")) for r in rules}
    contexts = {
        str(c.get("context"))
        for r in rules
        if r.get("type") == "required_status_checks"
        for c in (r.get("parameters") or {}).get("required_status_checks") or []
    }
    return contexts, "pull_request" in types, types


def classic_protection(api: SettingsReader, branch: str) -> dict[str, Any] | Hidden | None:
    """Classic branch protection; ``None`` when the branch has none (or does not exist yet)."""
    reply = api.branch_protection(branch)
    if isinstance(reply, Hidden):
        if reply.status == 404 and reply.message in ("Branch not protected", "Branch not found"):
            return None
        return reply
    return _dict(reply)


def default_branch_rules(api: SettingsReader, setup: Setup) -> Check:
    want = f"a pull request and the status check '{setup.status_context}' on '{setup.branch}'"
    fix = f"{RULES_SETTINGS}: require {want}"
    rules, classic = _rules(api, setup.branch), classic_protection(api, setup.branch)
    found: list[tuple[set[str], bool]] = []
    if not isinstance(rules, Hidden):
        found.append((rules[0], rules[1]))
    if isinstance(classic, dict):
        checks = classic.get("required_status_checks") or {}
        contexts = {str(c) for c in checks.get("contexts") or []}
        contexts |= {str(c.get("context")) for c in checks.get("checks") or []}
        found.append((contexts, "required_pull_request_reviews" in classic))
    if any(pr and setup.status_context in contexts for contexts, pr in found):
        return Check("default-branch", Status.PASS, f"required: {want}")
    unknown = rules if isinstance(rules, Hidden) else classic
    if isinstance(unknown, Hidden):
        return hidden("default-branch", unknown, fix)
    return Check("default-branch", Status.FAIL, f"not required: {want}", fix)


def state_branch_rules(api: SettingsReader, setup: Setup) -> Check:
    branch = setup.state_branch
    fix = (
        f"{RULES_SETTINGS}: on '{branch}' block deletion and force pushes only (no pull "
        "request, status check or push restriction: averos-ci pushes state commits directly)"
    )
    rules, classic = _rules(api, branch), classic_protection(api, branch)
    if isinstance(rules, Hidden):
        return hidden("state-branch", rules, fix)
    blocking = rules[2] & {"pull_request", "required_status_checks", "update", "creation"}
    guarded = {"deletion", "non_fast_forward"} <= rules[2]
    if isinstance(classic, dict):
        blocking |= {
            k
            for k in ("required_pull_request_reviews", "required_status_checks", "restrictions")
            if classic.get(k)
        }
        guarded = guarded or (
            not (classic.get("allow_force_pushes") or {}).get("enabled")
            and not (classic.get("allow_deletions") or {}).get("enabled")
        )
    if blocking:
        detail = (
            f"'{branch}' has rules that refuse averos-ci's pushes: {', '.join(sorted(blocking))}"
        )
        return Check("state-branch", Status.FAIL, detail, fix)
    if guarded:
        return Check("state-branch", Status.PASS, f"'{branch}': no deletion, no force push")
    if isinstance(classic, Hidden):
        return hidden("state-branch", classic, fix)
    detail = f"'{branch}' can be deleted or force-pushed by anyone with write access"
    return Check("state-branch", Status.FAIL, detail, fix)


def apply_environment(api: SettingsReader, setup: Setup) -> Check:
    fix = (
        f"{ENV_SETTINGS}: 'Deployment branches and tags' → 'Selected branches and tags' → "
        f"add '{setup.branch}'"
    )
    reply = api.environment(ENVIRONMENT)
    if isinstance(reply, Hidden) and reply.status == 404:
        detail = f"no environment '{ENVIRONMENT}' (or this token may not see it)"
        return Check("apply-environment", Status.FAIL, detail, f"create it; then {fix}")
    if isinstance(reply, Hidden):
        return hidden("apply-environment", reply, fix)
    policy = _dict(reply).get("deployment_branch_policy")
    if not isinstance(policy, dict):
        detail = f"'{ENVIRONMENT}' takes any branch: a workflow on any branch reads its secrets"
        return Check("apply-environment", Status.FAIL, detail, fix)
    if policy.get("protected_branches"):
        return Check("apply-environment", Status.PASS, "protected branches only")
    patterns = api.deployment_branch_policies(ENVIRONMENT)
    if isinstance(patterns, Hidden):
        return hidden("apply-environment", patterns, fix)
    names = [
        str(p.get("name"))
        for p in _dict(patterns).get("branch_policies") or []
        if isinstance(p, dict) and p.get("type", "branch") == "branch"
    ]
    wide = [n for n in names if n in ("*", "**")]
    if wide or not any(fnmatchcase(setup.branch, n) for n in names):
        detail = f"'{ENVIRONMENT}' deploys from {names or 'no branch'}, not only '{setup.branch}'"
        return Check("apply-environment", Status.FAIL, detail, fix)
    return Check("apply-environment", Status.PASS, f"deploys from {', '.join(names)}")


def state_key_secret(api: SettingsReader, setup: Setup) -> Check:
    fix = f"{ENV_SETTINGS} → Environment secrets → add '{STATE_KEY_SECRET}' (a random value)"
    reply = api.environment_secrets(ENVIRONMENT)
    if isinstance(reply, Hidden) and reply.status != 404:
        return hidden("state-key", reply, fix)
    if isinstance(reply, Read) and STATE_KEY_SECRET in _secret_names(reply):
        return Check("state-key", Status.PASS, f"'{STATE_KEY_SECRET}' is an environment secret")
    repo = api.repository_secrets()
    if isinstance(repo, Read) and STATE_KEY_SECRET in _secret_names(repo):
        detail = (
            f"'{STATE_KEY_SECRET}' is a repository secret: a workflow on any branch can read it"
        )
        return Check("state-key", Status.FAIL, detail, f"delete it there; {fix}")
    detail = f"no '{STATE_KEY_SECRET}' in '{ENVIRONMENT}': the apply's progress is not sealed"
    return Check("state-key", Status.FAIL, detail, fix)


def token_scopes(api: SettingsReader, setup: Setup) -> Check:
    by_hand = (
        "the token reports no scopes (GITHUB_TOKEN and fine-grained tokens never do); a "
        "fine-grained token needs read access to Administration, Environments and Secrets"
    )
    if api.scopes is None:
        return Check("token-scopes", Status.UNKNOWN, f"cannot check — verify by hand: {by_hand}")
    shown = ", ".join(sorted(api.scopes)) or "none"
    if "repo" in api.scopes:
        return Check("token-scopes", Status.PASS, f"scopes: {shown}")
    detail = f"scopes: {shown}; without 'repo' the settings above cannot be read"
    return Check("token-scopes", Status.FAIL, detail, "use a classic token with the 'repo' scope")


def workflows(setup: Setup) -> Check:
    folder = setup.root / ".github" / "workflows"
    files = sorted([*folder.glob("*.yml"), *folder.glob("*.yaml")])
    found: set[str] = set()
    issues: list[str] = []
    for path in files:
        data = load_workflow(path)
        if data is not None and averos_steps(data, path.name):
            found |= {step.command for step, _ in averos_steps(data, path.name)}
            issues += problems(path, branch=setup.branch)
            issues += [
                f"{path.name}: uses {uses}, but {uses.removeprefix('./')}/action.yml is missing "
                "(the local action that pins averos-ci)"
                for uses in missing_local_actions(data, setup.root)
            ]
    missing = {"plan", "approve", "apply"} - found
    if "auto" in found:
        missing = set()
    if missing:
        issues.append(f"no workflow runs {', '.join(sorted(missing))}")
    if issues:
        fix = "run 'averos-ci init' (or compare with examples/workflows)"
        return Check("workflows", Status.FAIL, "; ".join(issues), fix)
    return Check("workflows", Status.PASS, f"commands {', '.join(sorted(found))} set up")


def _dict(reply: Read) -> dict[str, Any]:
    return reply.data if isinstance(reply.data, dict) else {}


def _secret_names(reply: Read) -> set[str]:
    secrets = _dict(reply).get("secrets") or []
    return {str(s.get("name")) for s in secrets if isinstance(s, dict)}
