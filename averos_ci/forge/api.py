"""The GitHub REST endpoints averos-ci calls; the transport (retries, pagination, the token's
one host) is :mod:`averos_ci.forge.rest`. :class:`GitHubClient` is the GitHub implementation of
the forge seam (:class:`averos_ci.forge.protocol.Forge`).

The token lives only in the ``Authorization`` header of requests to the configured API host;
it is never part of a message, an exception or a log line.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from averos_ci.forge.rest import (
    API_VERSION,
    USER_AGENT,
    GitHubAPIError,
    RestClient,
    json_object,
    tls_context,
)
from averos_ci.forge.settings import GITHUB_COMMENT_LIMIT, Permission

if TYPE_CHECKING:
    from averos_ci.forge.protocol import Forge

__all__ = [
    "API_VERSION",
    "TRUNCATION_NOTE",
    "USER_AGENT",
    "GitHubAPIError",
    "GitHubClient",
    "clip_body",
    "tls_context",
]

TRUNCATION_NOTE = "\n\n… (truncated by averos-ci to fit GitHub's comment size limit)\n"


def clip_body(body: str, limit: int = GITHUB_COMMENT_LIMIT) -> str:
    """The last guard against GitHub's 422 "body is too long": never send more than ``limit``."""
    if len(body) <= limit:
        return body
    return body[: limit - len(TRUNCATION_NOTE)] + TRUNCATION_NOTE


class GitHubClient(RestClient):
    @property
    def _repo(self) -> str:
        return f"/repos/{self.repository}"

    def authenticated_login(self) -> str | None:
        """GET /user; the Actions token cannot call it (403) — then ``None``."""
        try:
            data = self.request("GET", "/user", idempotent=True).json()
        except GitHubAPIError as exc:
            if exc.status in (401, 403, 404):
                return None
            raise
        login = data.get("login") if isinstance(data, dict) else None
        return login if isinstance(login, str) else None

    def get_pull(self, number: int) -> dict[str, Any]:
        return json_object(self.request("GET", f"{self._repo}/pulls/{number}"))

    def issue_comments(self, number: int) -> Iterator[dict[str, Any]]:
        return self.paginate(f"{self._repo}/issues/{number}/comments")

    def issue_timeline(self, number: int) -> Iterator[dict[str, Any]]:
        """GET /issues/{n}/timeline (OpenAPI ``timeline-issue-events``), oldest first."""
        return self.paginate(f"{self._repo}/issues/{number}/timeline")

    def get_comment(self, comment_id: int) -> dict[str, Any] | None:
        try:
            return json_object(self.request("GET", f"{self._repo}/issues/comments/{comment_id}"))
        except GitHubAPIError as exc:
            if exc.status == 404:
                return None
            raise

    def create_comment(self, number: int, body: str) -> dict[str, Any]:
        return json_object(
            self.request(
                "POST", f"{self._repo}/issues/{number}/comments", json={"body": clip_body(body)}
            )
        )

    def update_comment(self, comment_id: int, body: str) -> dict[str, Any]:
        return json_object(
            self.request(
                "PATCH",
                f"{self._repo}/issues/comments/{comment_id}",
                json={"body": clip_body(body)},
            )
        )

    def react(self, comment_id: int, content: str) -> None:
        self.request(
            "POST",
            f"{self._repo}/issues/comments/{comment_id}/reactions",
            json={"content": content},
            idempotent=True,
        )

    def reviews(self, number: int) -> Iterator[dict[str, Any]]:
        return self.paginate(f"{self._repo}/pulls/{number}/reviews")

    def pull_commits(self, number: int) -> Iterator[dict[str, Any]]:
        return self.paginate(f"{self._repo}/pulls/{number}/commits")

    def permission(self, login: str) -> Permission:
        try:
            path = f"{self._repo}/collaborators/{login}/permission"
            data = json_object(self.request("GET", path))
        except GitHubAPIError as exc:
            if exc.status == 404:
                return Permission.NONE
            raise
        for key in ("role_name", "permission"):
            value = data.get(key)
            if isinstance(value, str) and value in Permission._value2member_map_:
                return Permission(value)
        return Permission.NONE

    def commit_statuses(self, sha: str) -> Iterator[dict[str, Any]]:
        """GET /commits/{sha}/statuses: every status ever set on ``sha`` (append-only), each
        with its ``creator``."""
        return self.paginate(f"{self._repo}/commits/{sha}/statuses")

    def set_status(
        self, sha: str, *, state: str, description: str, context: str, target_url: str | None = None
    ) -> None:
        body: dict[str, Any] = {
            "state": state,
            "description": description[:140],
            "context": context,
        }
        if target_url:
            body["target_url"] = target_url
        self.request("POST", f"{self._repo}/statuses/{sha}", json=body, idempotent=True)

    def create_pull(self, *, title: str, head: str, base: str, body: str) -> dict[str, Any]:
        """POST /repos/{owner}/{repo}/pulls (not retried: a retry could open two)."""
        return json_object(
            self.request(
                "POST",
                f"{self._repo}/pulls",
                json={"title": title, "head": head, "base": base, "body": clip_body(body)},
            )
        )

    def open_pulls(self, *, head: str, base: str) -> list[dict[str, Any]]:
        """Open pull requests from ``head`` (``owner:branch``) into ``base``."""
        owner = self.repository.split("/")[0]
        return list(
            self.paginate(
                f"{self._repo}/pulls",
                params={"state": "open", "head": f"{owner}:{head}", "base": base},
            )
        )

    def open_pull_requests(self) -> Iterator[dict[str, Any]]:
        """Every open pull request of the repository, newest first."""
        return self.paginate(f"{self._repo}/pulls", params={"state": "open"})

    def combined_status_page(self, sha: str, page: int) -> Any:
        """One page (100 contexts) of GET /commits/{sha}/status: each context's latest state."""
        resp = self.request(
            "GET", f"{self._repo}/commits/{sha}/status", params={"per_page": 100, "page": page}
        )
        return resp.json()

    def pulls_for_commit(self, sha: str) -> list[dict[str, Any]]:
        return list(self.paginate(f"{self._repo}/commits/{sha}/pulls"))

    # -- issues (the scheduled drift check's, :mod:`averos_ci.forge.issue_sync`) ------------

    def open_issues(self, label: str) -> Iterator[dict[str, Any]]:
        """Open issues labelled ``label``, oldest first (pull requests left out)."""
        return self._issues(labels=label, state="open")

    def issues_since(self, label: str, since: str) -> Iterator[dict[str, Any]]:
        """Issues labelled ``label``, open or closed, updated at or after ``since`` (ISO 8601,
        ``YYYY-MM-DDTHH:MM:SSZ``), oldest first (pull requests left out)."""
        return self._issues(labels=label, state="all", since=since)

    def _issues(self, **params: str) -> Iterator[dict[str, Any]]:
        """GET /issues with ``params``, oldest first, every page; pull requests left out."""
        query = {**params, "sort": "created", "direction": "asc"}
        return (
            i
            for i in self.paginate(f"{self._repo}/issues", params=query)
            if "pull_request" not in i
        )

    def get_issue(self, number: int) -> dict[str, Any] | None:
        """GET /issues/{n} (an issue, or a pull request seen as one); ``None`` when it is
        gone: deleted (410), moved to another repository (301) or never there (404)."""
        try:
            return json_object(self.request("GET", f"{self._repo}/issues/{number}"))
        except GitHubAPIError as exc:
            if exc.status in (301, 404, 410):
                return None
            raise

    def create_issue(self, *, title: str, body: str, labels: list[str]) -> dict[str, Any]:
        """POST /issues (not retried once sent: a retry could open two)."""
        return json_object(
            self.request(
                "POST",
                f"{self._repo}/issues",
                json={"title": title, "body": clip_body(body), "labels": labels},
            )
        )

    def update_issue(self, number: int, **fields: Any) -> dict[str, Any]:
        """PATCH /issues/{n} with ``fields`` (``title``, ``body``, ``state``,
        ``state_reason``)."""
        if isinstance(fields.get("body"), str):
            fields["body"] = clip_body(fields["body"])
        return json_object(self.request("PATCH", f"{self._repo}/issues/{number}", json=fields))

    def ensure_label(self, name: str, *, color: str, description: str) -> None:
        """The label exists afterwards: GET, and POST only when missing (a concurrent
        creation's 422 ``already_exists`` is success)."""
        try:
            self.request("GET", f"{self._repo}/labels/{quote(name, safe='')}")
            return
        except GitHubAPIError as exc:
            if exc.status != 404:
                raise
        try:
            self.request(
                "POST",
                f"{self._repo}/labels",
                json={"name": name, "color": color, "description": description},
            )
        except GitHubAPIError as exc:
            if exc.status != 422:
                raise


if TYPE_CHECKING:

    def _is_a_forge(client: GitHubClient) -> Forge:  # mypy proves GitHubClient meets the seam
        return client
