"""A fake of GitHub's repository-settings endpoints (the ones ``doctor`` reads), served by a
real HTTP server on 127.0.0.1; every exchange is checked against GitHub's OpenAPI
description (tests/openapi_check.py) when the test ends."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote

from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from tests.openapi_check import OpenAPISpec

TOKEN = "ghp_doctor-test-token-0123456789"
REPO = "acme/shop"
STAMP = "2026-01-01T00:00:00Z"
HIDDEN = "hidden"  # a setting this token may not read: 403


def rule(kind: str, **parameters: Any) -> dict[str, Any]:
    out: dict[str, Any] = {
        "type": kind,
        "ruleset_source_type": "Repository",
        "ruleset_source": REPO,
        "ruleset_id": 7,
    }
    if parameters:
        out["parameters"] = parameters
    return out


def pull_request_rule() -> dict[str, Any]:
    return rule(
        "pull_request",
        dismiss_stale_reviews_on_push=True,
        require_code_owner_review=False,
        require_last_push_approval=False,
        required_approving_review_count=1,
        required_review_thread_resolution=False,
    )


def status_rule(*contexts: str) -> dict[str, Any]:
    return rule(
        "required_status_checks",
        strict_required_status_checks_policy=False,
        required_status_checks=[{"context": c} for c in contexts],
    )


def ruleset(ruleset_id: int = 7, *, bypass: list[dict[str, Any]] | None) -> dict[str, Any]:
    """A ruleset as GET …/rulesets/{id} returns it; ``bypass`` ``None``: the list is not
    shown (a token without admin rights)."""
    out: dict[str, Any] = {
        "id": ruleset_id,
        "name": "protect main",
        "target": "branch",
        "source_type": "Repository",
        "source": REPO,
        "enforcement": "active",
        "conditions": {"ref_name": {"include": ["~DEFAULT_BRANCH"], "exclude": []}},
        "rules": [{"type": "pull_request"}],
        "node_id": f"RRS_{ruleset_id}",
        "created_at": STAMP,
        "updated_at": STAMP,
    }
    if bypass is not None:
        out["bypass_actors"] = bypass
    return out


def app_actor(mode: str = "always") -> dict[str, Any]:
    return {"actor_id": 123456, "actor_type": "Integration", "bypass_mode": mode}


@dataclass
class Settings:
    """What the repository's settings are; each field is one thing ``doctor`` checks."""

    can_approve_prs: bool | str = True
    rules: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    protection: dict[str, dict[str, Any] | str] = field(default_factory=dict)  # or HIDDEN
    environment: dict[str, Any] | str | None = None  # None: no environment; HIDDEN: 403
    branch_policies: list[str] = field(default_factory=list)
    environment_secrets: list[str] = field(default_factory=list)
    repository_secrets: list[str] = field(default_factory=list)
    scopes: str | None = "repo, workflow"  # X-OAuth-Scopes; None: no header (GITHUB_TOKEN)
    rulesets: dict[int, dict[str, Any] | str] = field(default_factory=dict)  # or HIDDEN


def environment(policy: dict[str, bool] | None) -> dict[str, Any]:
    return {
        "id": 1,
        "node_id": "EN_1",
        "name": "averos-apply",
        "url": f"https://api.github.com/repos/{REPO}/environments/averos-apply",
        "html_url": f"https://github.com/{REPO}/deployments/activity_log?environments_filter=averos-apply",
        "created_at": STAMP,
        "updated_at": STAMP,
        "deployment_branch_policy": policy,
    }


def _secrets(names: list[str]) -> dict[str, Any]:
    items = [{"name": n, "created_at": STAMP, "updated_at": STAMP} for n in names]
    return {"total_count": len(items), "secrets": items}


def _error(status: int, message: str) -> tuple[int, Any]:
    return status, {"message": message, "documentation_url": "https://docs.github.com/rest"}


class SettingsFake:
    def __init__(self, server: HTTPServer, spec: OpenAPISpec) -> None:
        self.server = server
        self.spec = spec
        self.settings = Settings()
        self.exchanges: list[tuple[str, str, dict[str, str], int, Any]] = []
        self.extra_headers: dict[str, str] = {}
        server.expect_request(re.compile(r"/.*")).respond_with_handler(self._handle)

    @property
    def url(self) -> str:
        return self.server.url_for("").rstrip("/")

    def _handle(self, request: Request) -> Response:
        assert request.headers.get("Authorization") == f"Bearer {TOKEN}"
        assert request.headers.get("X-GitHub-Api-Version") == "2022-11-28"
        path = unquote(request.path)
        status, body = self._route(request.method, path)
        query = {k: v for k, v in request.args.items()}
        self.exchanges.append((request.method, path, query, status, body))
        headers = {"Content-Type": "application/json"}
        if self.settings.scopes is not None:
            headers["X-OAuth-Scopes"] = self.settings.scopes
        headers.update(self.extra_headers)
        self.extra_headers = {}
        return Response(json.dumps(body), status=status, headers=headers)

    def _route(self, method: str, path: str) -> tuple[int, Any]:
        s = self.settings
        base = f"/repos/{REPO}"
        if method != "GET" or not path.startswith(base):
            return _error(404, "Not Found")
        rest = path.removeprefix(base)
        if rest == "/actions/permissions/workflow":
            if s.can_approve_prs == HIDDEN:
                return _error(403, "Resource not accessible by integration")
            return 200, {
                "default_workflow_permissions": "read",
                "can_approve_pull_request_reviews": s.can_approve_prs,
            }
        if m := re.fullmatch(r"/rules/branches/(.+)", rest):
            return 200, s.rules.get(m.group(1), [])
        if m := re.fullmatch(r"/rulesets/(\d+)", rest):
            got = s.rulesets.get(int(m.group(1)))
            if got == HIDDEN:
                return _error(403, "Resource not accessible by integration")
            return (200, got) if isinstance(got, dict) else _error(404, "Not Found")
        if m := re.fullmatch(r"/branches/(.+)/protection", rest):
            found = s.protection.get(m.group(1))
            if found == HIDDEN:
                return _error(403, "Resource not accessible by integration")
            return (200, found) if isinstance(found, dict) else _error(404, "Branch not protected")
        env = "/environments/averos-apply"
        if rest.startswith(env):
            if s.environment is None:
                return _error(404, "Not Found")
            if s.environment == HIDDEN:
                return _error(403, "Resource not accessible by integration")
        if rest == env:
            return 200, s.environment
        if rest == env + "/deployment-branch-policies":
            items = [
                {"id": i, "node_id": f"P_{i}", "name": n, "type": "branch"}
                for i, n in enumerate(s.branch_policies, 1)
            ]
            return 200, {"total_count": len(items), "branch_policies": items}
        if rest == env + "/secrets":
            return 200, _secrets(s.environment_secrets)
        if rest == "/actions/secrets":
            return 200, _secrets(s.repository_secrets)
        return _error(404, "Not Found")

    def check_exchanges(self) -> None:
        assert self.exchanges, "no request reached the fake"
        for method, path, query, status, body in self.exchanges:
            self.spec.check(method, path, query, status, body)


def classic_protection(**parts: Any) -> dict[str, Any]:
    """A branch protection object as GET …/protection returns it."""
    url = f"https://api.github.com/repos/{REPO}/branches/main/protection"
    return {"url": url, **parts}
