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

A fork's pull request is planned by a ``workflow_run`` follow-up, whose payload names the
actor of the fork's run but not its action: for ``reopened`` or ``ready_for_review`` that actor
is who reopened it, not who pushed. :func:`proven_fork_pusher` takes the actor as the pusher
only when the pull request's timeline proves the run was a push's (see there); else none is
recorded and the rule fails closed, as for a same-repository reopen.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

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


# pull_request activity that starts a run without a push: its actor is not a pusher
_NOT_A_PUSH = frozenset({"reopened", "ready_for_review", "converted_to_draft"})


def proven_fork_pusher(
    timeline: Iterable[Mapping[str, Any]], *, head_sha: str, actor: str | None
) -> str | None:
    """Who pushed ``head_sha`` of a fork's pull request, as far as its timeline proves it.

    - a ``head_ref_force_pushed`` event to ``head_sha``: its actor (the server's record);
    - else the run's ``actor``, only when ``head_sha`` is a ``committed`` event and the pull
      request was never reopened or made ready for review: then the run that planned it was an
      ``opened`` or ``synchronize`` one, whose actor is the pusher. A ``committed`` event's
      place in the timeline follows git's dates, which the committer sets, so it never proves
      a push came after a reopen;
    - else ``None`` (not proven: every approval but the author's refused until a push).
    """
    committed, not_a_push = False, False
    forced: str | None = None
    for event in timeline:
        kind = event.get("event")
        if kind == "committed" and event.get("sha") == head_sha:
            committed = True
        elif kind == "head_ref_force_pushed" and event.get("commit_id") == head_sha:
            login = (event.get("actor") or {}).get("login")
            forced = login if isinstance(login, str) and login else None
        elif kind in _NOT_A_PUSH:
            not_a_push, forced = True, None  # a force push before it proves nothing now
    if forced is not None:
        return forced
    if committed and not not_a_push:
        return actor
    return None
