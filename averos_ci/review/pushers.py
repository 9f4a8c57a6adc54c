"""The last-pusher rule: whoever pushed a pull request's head cannot approve it.

Like GitHub's "require approval of the most recent reviewable push" (which covers reviews,
not ``/averos approve`` comments), a user with write access who pushes a commit to someone
else's pull request could otherwise approve their own change. Who *pushed* is the ``sender``
of the ``pull_request`` ``synchronize`` (or ``opened``) event, which the plan job records in
the bot's own status on the head (:mod:`averos_ci.review.records`: append-only, ``creator``
checked). A commit's author and committer are set freely by the client (bob can commit as
``<id>+alice@users.noreply.github.com``), so they are never trusted to clear anyone; they
only refuse more: everyone GitHub maps a commit of the pull request to is refused too.

A head without a recorded push (its plan run was cancelled, or it was planned only by
``/averos plan``) fails closed: no approval by anyone but the author counts until a push is
planned. The base branch's ``github.allowPusherApproval`` turns the rule off.
"""

from __future__ import annotations

from averos_ci.forge.protocol import Forge

# GitHub's web-flow committer (merges and edits made in the web UI) is not a person.
_NOT_PEOPLE = frozenset({"web-flow"})


def commit_logins(client: Forge, pr_number: int) -> frozenset[str]:
    """Logins of the authors and committers of the pull request's commits (all pages)."""
    logins: set[str] = set()
    for commit in client.pull_commits(pr_number):
        for role in ("author", "committer"):
            login = (commit.get(role) or {}).get("login")
            if isinstance(login, str) and login and login not in _NOT_PEOPLE:
                logins.add(login)
    return frozenset(logins)


def pusher_refusal(
    client: Forge,
    *,
    login: str,
    pr_number: int,
    pr_author: str,
    allowed: bool,
    pusher: str | None,
    head_sha: str,
) -> str | None:
    """Why ``login`` cannot approve pull request ``pr_number`` as a pusher, or ``None``.
    ``pusher``: who pushed ``head_sha``, as the bot recorded it (``None``: not recorded)."""
    if allowed or login == pr_author:
        return None
    if pusher is None:
        return (
            f"who pushed head {head_sha[:12]} is not recorded (its plan run for the push did "
            "not finish), so the last-pusher rule refuses every approval; push again, or "
            "re-run the plan job of the push (see github.allowPusherApproval)"
        )
    if login.lower() == pusher.lower():
        return (
            f"@{login} pushed head {head_sha[:12]} of this pull request and cannot approve it "
            "(the last-pusher rule; see github.allowPusherApproval)"
        )
    if login in commit_logins(client, pr_number):
        return (
            f"@{login} authored or committed a commit of this pull request and cannot approve "
            "it (the last-pusher rule; see github.allowPusherApproval)"
        )
    return None
