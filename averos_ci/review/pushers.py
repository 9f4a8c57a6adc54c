"""The last-pusher rule: whoever put a commit on a pull request's head cannot approve it.

Like GitHub's "require approval of the most recent reviewable push", a user with write access
who pushes a commit to someone else's pull request could otherwise approve their own change.
Everyone who authored or committed a commit of the pull request (``GET /pulls/{n}/commits``:
``author.login`` / ``committer.login``, the GitHub accounts the commit's e-mails belong to) is
therefore refused as an approver, unless the base branch's config sets
``github.allowPusherApproval``. The pull request's author is left to ``allowSelfApproval``.

Limits (documented in the README): GitHub lists at most 250 commits of a pull request, and a
commit whose e-mail belongs to no account has no login; a push of commits made by others
leaves no trace in this API. Requiring approval by someone with no commit on the branch is
the strictest reading that the REST API supports.
"""

from __future__ import annotations

from averos_ci.forge.api import GitHubClient

# GitHub's web-flow committer (merges and edits made in the web UI) is not a person.
_NOT_PEOPLE = frozenset({"web-flow"})


def commit_logins(client: GitHubClient, pr_number: int) -> frozenset[str]:
    """Logins of the authors and committers of the pull request's commits (all pages)."""
    logins: set[str] = set()
    for commit in client.pull_commits(pr_number):
        for role in ("author", "committer"):
            login = (commit.get(role) or {}).get("login")
            if isinstance(login, str) and login and login not in _NOT_PEOPLE:
                logins.add(login)
    return frozenset(logins)


def pusher_refusal(
    client: GitHubClient, *, login: str, pr_number: int, pr_author: str, allowed: bool
) -> str | None:
    """Why ``login`` cannot approve pull request ``pr_number`` as a pusher, or ``None``."""
    if allowed or login == pr_author:
        return None
    if login in commit_logins(client, pr_number):
        return (
            f"@{login} authored or committed a commit of this pull request and cannot approve "
            "it (the last-pusher rule; see github.allowPusherApproval)"
        )
    return None
