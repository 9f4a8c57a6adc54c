"""The forge seam: what the review rules (:mod:`averos_ci.review`) and the flows ask of a
forge — pull requests, their comments, reviews, commits and timeline, commit statuses, a
user's permission, and the issues a scheduled check keeps.

:class:`averos_ci.forge.api.GitHubClient` is the GitHub implementation; another forge (GitLab,
Gitea) implements the same methods in a sibling of ``forge/`` and the review rules run
unchanged. Payloads are GitHub-shaped dicts (``number``, ``head.sha``, ``user.login``,
``body``, ``created_at``, ``state``): an implementation translates to them.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Protocol, runtime_checkable

from averos_ci._permission import Permission


@runtime_checkable
class Forge(Protocol):
    @property
    def repository(self) -> str:
        """``owner/name``."""
        ...

    # -- pull requests ---------------------------------------------------------------------

    def get_pull(self, number: int) -> dict[str, Any]: ...

    def open_pull_requests(self) -> Iterator[dict[str, Any]]: ...

    def pulls_for_commit(self, sha: str) -> list[dict[str, Any]]: ...

    def pull_commits(self, number: int) -> Iterator[dict[str, Any]]: ...

    def reviews(self, number: int) -> Iterator[dict[str, Any]]: ...

    def issue_timeline(self, number: int) -> Iterator[dict[str, Any]]:
        """The pull request's timeline, oldest first: a fork head's push is proven by its
        ``committed`` / ``head_ref_force_pushed`` event (:mod:`averos_ci.github.fork_flow`)."""
        ...

    # -- comments (the sticky plan comment, approvals, replies) ----------------------------

    def issue_comments(self, number: int) -> Iterator[dict[str, Any]]: ...

    def create_comment(self, number: int, body: str) -> dict[str, Any]: ...

    def update_comment(self, comment_id: int, body: str) -> dict[str, Any]: ...

    # -- statuses and permissions ----------------------------------------------------------

    def commit_statuses(self, sha: str) -> Iterator[dict[str, Any]]: ...

    def combined_status_page(self, sha: str, page: int) -> Any: ...

    def set_status(
        self, sha: str, *, state: str, description: str, context: str, target_url: str | None = None
    ) -> None: ...

    def permission(self, login: str) -> Permission: ...

    # -- issues (one per drifted project: :mod:`averos_ci.forge.issue_sync`) ---------------

    def open_issues(self, label: str) -> Iterator[dict[str, Any]]:
        """Open issues labelled ``label``, oldest first, pull requests left out."""
        ...

    def issues_since(self, label: str, since: str) -> Iterator[dict[str, Any]]:
        """Issues labelled ``label``, open or closed, updated at or after ``since``."""
        ...

    def get_issue(self, number: int) -> dict[str, Any] | None:
        """Issue ``number`` (a pull request has ``pull_request``); ``None`` when it is gone."""
        ...

    def create_issue(self, *, title: str, body: str, labels: list[str]) -> dict[str, Any]: ...

    def update_issue(self, number: int, **fields: Any) -> dict[str, Any]: ...

    def ensure_label(self, name: str, *, color: str, description: str) -> None: ...
