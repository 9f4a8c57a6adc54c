"""The repository-settings endpoints ``doctor`` reads, over the project's REST client.

Most need admin rights or a token with scopes. A 403, or a 404 that GitHub also gives for
"you may not see this", is :class:`Hidden`: the caller reports "cannot check", never a pass.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from averos_ci.forge.api import GitHubAPIError, GitHubClient


@dataclass(frozen=True)
class Hidden:
    """The token may not read it (HTTP 403/404): unknown, not absent."""

    status: int
    message: str = ""


@dataclass(frozen=True)
class Read:
    status: int
    data: Any


@dataclass
class SettingsReader:
    client: GitHubClient
    scopes: set[str] | None = field(default=None, init=False)  # None: no X-OAuth-Scopes seen

    @property
    def _repo(self) -> str:
        return f"/repos/{self.client.repository}"

    def get(self, path: str) -> Read | Hidden:
        resp = self.client.request("GET", self._repo + path, ok=(200, 403, 404))
        if resp.status_code == 403 and resp.headers.get("x-ratelimit-remaining") == "0":
            raise GitHubAPIError(
                f"GET {self._repo}{path.split('?')[0]}: rate limited (HTTP 403)",
                status=403,
                hint="run doctor again once the limit has reset",
            )
        header = resp.headers.get("x-oauth-scopes")
        if header is not None:
            self.scopes = {s.strip() for s in header.split(",") if s.strip()}
        try:
            data = resp.json()
        except ValueError:
            data = None
        if resp.status_code == 200:
            return Read(200, data)
        message = str(data.get("message", "")) if isinstance(data, dict) else ""
        return Hidden(resp.status_code, message)

    def workflow_permissions(self) -> Read | Hidden:
        return self.get("/actions/permissions/workflow")

    def branch_protection(self, branch: str) -> Read | Hidden:
        return self.get(f"/branches/{_seg(branch)}/protection")

    def branch_rules(self, branch: str) -> Read | Hidden:
        return self.get(f"/rules/branches/{_seg(branch)}?per_page=100")

    def ruleset(self, ruleset_id: int) -> Read | Hidden:
        return self.get(f"/rulesets/{ruleset_id}")

    def environment(self, name: str) -> Read | Hidden:
        return self.get(f"/environments/{_seg(name)}")

    def deployment_branch_policies(self, name: str) -> Read | Hidden:
        return self.get(f"/environments/{_seg(name)}/deployment-branch-policies?per_page=100")

    def environment_secrets(self, name: str) -> Read | Hidden:
        return self.get(f"/environments/{_seg(name)}/secrets?per_page=100")

    def repository_secrets(self) -> Read | Hidden:
        return self.get("/actions/secrets?per_page=100")


def _seg(value: str) -> str:
    return quote(value, safe="")
