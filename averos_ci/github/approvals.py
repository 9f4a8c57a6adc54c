"""Who may approve, and whether an approval still counts.

An approval is never a stored flag: the sticky comment keeps *pointers* to the comments and
reviews that approved; each is re-read from GitHub and re-checked (author, body or review
state and commit, the approver's *current* permission) whenever it matters.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from averos_ci.github.api import GitHubClient
from averos_ci.github.comment import ApprovalRef, PlanMeta, parse_command
from averos_ci.github.settings import GitHubSettings, Permission


@dataclass(frozen=True)
class Refusal:
    reason: str


def check_approver(
    client: GitHubClient, *, login: str, pr_author: str, settings: GitHubSettings
) -> Refusal | None:
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
    return None


def comment_is_approval(comment: dict[str, Any], *, plan_hash: str) -> Refusal | None:
    is_command, prefix = parse_command(comment.get("body"))
    if not is_command:
        return Refusal("not an approval command")
    if prefix == "!invalid":
        return Refusal("use `/averos approve` (optionally followed by the planHash)")
    if prefix is not None and not plan_hash.startswith(prefix):
        return Refusal(f"the planHash prefix {prefix} is not the current plan's")
    created, updated = comment.get("created_at"), comment.get("updated_at")
    if created and updated and created != updated:
        return Refusal("the approval comment was edited; post a new one")
    return None


def latest_reviews(reviews: list[dict[str, Any]]) -> dict[int, dict[str, Any]]:
    """Approving reviews by id that are still each user's latest word (approve / request
    changes / dismissed), as GitHub counts them."""
    latest: dict[str, dict[str, Any]] = {}
    for r in reviews:
        login = (r.get("user") or {}).get("login")
        if login and r.get("state") in ("APPROVED", "CHANGES_REQUESTED", "DISMISSED"):
            latest[login] = r
    return {int(r["id"]): r for r in latest.values() if r.get("state") == "APPROVED"}


def current_approvers(
    client: GitHubClient,
    *,
    pr_number: int,
    pr_author: str,
    meta: PlanMeta,
    plan_hash: str,
    head_sha: str,
    settings: GitHubSettings,
) -> list[str]:
    """Logins whose approval of exactly (plan_hash, head_sha) still holds, re-derived now."""
    approvers: list[str] = []
    refs = [a for a in meta.approvals if a.plan_hash == plan_hash and a.head_sha == head_sha]
    reviews: dict[int, dict[str, Any]] | None = None
    for ref in refs:
        if ref.user in approvers:
            continue
        if ref.kind == "comment":
            ok = _comment_holds(client, ref, pr_number=pr_number, plan_hash=plan_hash)
        else:
            if reviews is None:
                reviews = latest_reviews(list(client.reviews(pr_number)))
            review = reviews.get(ref.id)
            ok = (
                review is not None
                and review.get("state") == "APPROVED"
                and review.get("commit_id") == head_sha
                and (review.get("user") or {}).get("login") == ref.user
            )
        if (
            ok
            and check_approver(client, login=ref.user, pr_author=pr_author, settings=settings)
            is None
        ):
            approvers.append(ref.user)
    return approvers


def _comment_holds(
    client: GitHubClient, ref: ApprovalRef, *, pr_number: int, plan_hash: str
) -> bool:
    comment = client.get_comment(ref.id)
    if comment is None or (comment.get("user") or {}).get("login") != ref.user:
        return False
    if not str(comment.get("issue_url", "")).endswith(f"/issues/{pr_number}"):
        return False
    return comment_is_approval(comment, plan_hash=plan_hash) is None


__all__ = [
    "Permission",
    "Refusal",
    "check_approver",
    "comment_is_approval",
    "current_approvers",
    "latest_reviews",
]
