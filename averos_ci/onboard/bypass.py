"""``doctor``'s ``app-bypass`` check: may a GitHub App push the generated commit to the
protected default branch? It may when every ruleset whose rules refuse a direct push there
has an App (``actor_type: Integration``, bypass mode ``always``) in its bypass list
(docs/how-to/protected-branches.md). Classic branch protection cannot let an App through its
required status checks, so it fails the check too."""

from __future__ import annotations

from typing import Any

from averos_ci.onboard.checks import (
    RULES_SETTINGS,
    Check,
    Setup,
    Status,
    classic_protection,
    hidden,
)
from averos_ci.onboard.settings_api import Hidden, SettingsReader

ID = "app-bypass"
# Rule types that refuse a direct push of a new commit (a bypass lets the App through them).
REFUSING = frozenset(
    {
        "pull_request",
        "required_status_checks",
        "update",
        "required_signatures",
        "required_deployments",
        "merge_queue",
    }
)
CLASSIC_REFUSING = ("required_pull_request_reviews", "required_status_checks", "restrictions")
PUSHING_MODES = frozenset({"always", "exempt"})  # "pull_request": only when merging a PR


def app_bypass(api: SettingsReader, setup: Setup) -> Check:
    branch = setup.branch
    fix = (
        f"{RULES_SETTINGS}: in the ruleset of '{branch}', Bypass list → Add bypass → Apps → "
        "the App that pushes the generated commit, mode 'Always' (Contents: write; its key in "
        "the averos-apply environment; docs/how-to/protected-branches.md)"
    )
    reply = api.branch_rules(branch)
    if isinstance(reply, Hidden):
        return hidden(ID, reply, fix)
    rules = [r for r in reply.data if isinstance(r, dict)] if isinstance(reply.data, list) else []
    ids = sorted(
        {
            r["ruleset_id"]
            for r in rules
            if r.get("type") in REFUSING and isinstance(r.get("ruleset_id"), int)
        }
    )
    classic = classic_protection(api, branch)
    if isinstance(classic, dict) and any(classic.get(k) for k in CLASSIC_REFUSING):
        detail = (
            f"'{branch}' has classic branch protection, which no App can bypass for a direct "
            "push: the generated commit is refused and waits in a pull request"
        )
        return Check(ID, Status.FAIL, detail, f"move '{branch}''s protection to a ruleset; {fix}")
    if not ids:
        if isinstance(classic, Hidden):
            return hidden(ID, classic, fix)
        return Check(ID, Status.PASS, f"no rule on '{branch}' refuses a direct push")
    found: list[str] = []
    missing: list[str] = []
    for ruleset_id in ids:
        got = api.ruleset(ruleset_id)
        if isinstance(got, Hidden):
            return hidden(ID, got, fix)
        data: dict[str, Any] = got.data if isinstance(got.data, dict) else {}
        name = f"'{data.get('name') or ruleset_id}'"
        actors = data.get("bypass_actors")
        if not isinstance(actors, list):  # GitHub shows the bypass list to admins only
            why = f"the bypass list of ruleset {name} is not shown to this token (admin only)"
            return Check(ID, Status.UNKNOWN, f"cannot check ({why}) — verify by hand: {fix}")
        apps = [
            a
            for a in actors
            if isinstance(a, dict)
            and a.get("actor_type") == "Integration"
            and a.get("bypass_mode", "always") in PUSHING_MODES
        ]
        (found if apps else missing).append(name)
    if missing:
        detail = (
            f"no App may push through ruleset(s) {', '.join(missing)} of '{branch}': the "
            "generated commit is refused and waits in a pull request (an extra merge)"
        )
        return Check(ID, Status.FAIL, detail, fix)
    return Check(ID, Status.PASS, f"an App bypasses ruleset(s) {', '.join(found)} of '{branch}'")
