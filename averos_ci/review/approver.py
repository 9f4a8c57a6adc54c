"""Who may approve: not an agent identity, not the author (unless ``allowSelfApproval``), not a
bot, the repository permission ``approvalPermission`` asks — read now, never cached — an owner
of the project when it has owners (:mod:`averos_ci.review.owners`), and not someone who pushed
to the head (unless ``allowPusherApproval``)."""

from __future__ import annotations

from dataclasses import dataclass

from averos_ci.forge.protocol import Forge
from averos_ci.forge.settings import GitHubSettings
from averos_ci.review.owners import Owners
from averos_ci.review.pushers import pusher_refusal
from averos_ci.review.records import HeadFacts


@dataclass(frozen=True)
class Refusal:
    reason: str
    hint: str | None = None  # markdown built here (never from a payload), shown unescaped


def is_agent(login: str, settings: GitHubSettings) -> bool:
    """Whether ``login`` is one of ``github.agentIdentities`` (case-insensitive)."""
    return login.lower() in {a.lower() for a in settings.agent_identities}


def check_approver(
    client: Forge,
    *,
    login: str,
    pr_number: int,
    pr_author: str,
    settings: GitHubSettings,
    facts: HeadFacts,
    head_sha: str,
    owners: Owners | None = None,
) -> Refusal | None:
    """``facts``: the bot's records of ``head_sha`` (who pushed it); ``owners``: the
    project's owners at the base commit (``None``: it has none, the permission decides)."""
    if is_agent(login, settings):  # before allowSelfApproval: an agent never approves
        return Refusal(
            f"@{login} is an agent identity (github.agentIdentities): agents propose, "
            "people approve"
        )
    if login == pr_author and not settings.allow_self_approval:
        return Refusal(f"@{login} opened this pull request and cannot approve its own plan")
    if login.endswith("[bot]"):
        return Refusal(f"@{login} is a bot; bots cannot approve")
    level = client.permission(login)
    if level.rank < settings.approval_permission.rank:
        return Refusal(
            f"@{login} has '{level.value}' permission on the repository; approving "
            f"needs '{settings.approval_permission.value}' or higher"
        )
    if owners is not None and (not_owner := owners.refusal(login)) is not None:
        return Refusal(*not_owner)
    pushed = pusher_refusal(
        client,
        login=login,
        pr_number=pr_number,
        pr_author=pr_author,
        allowed=settings.allow_pusher_approval,
        pusher=facts.pusher,
        head_sha=head_sha,
    )
    return Refusal(pushed) if pushed else None
