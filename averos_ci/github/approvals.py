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


def latest_review_states(reviews: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Each user's latest state-changing review (approve / request changes / dismissed),
    which is what GitHub counts."""
    latest: dict[str, dict[str, Any]] = {}
    for r in reviews:
        login = (r.get("user") or {}).get("login")
        if login and r.get("state") in ("APPROVED", "CHANGES_REQUESTED", "DISMISSED"):
            latest[login] = r
    return latest


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
    """Logins whose approval of exactly (plan_hash, head_sha) still holds, re-derived now.

    A user whose latest review requests changes (or whose approving review was dismissed)
    does not count, whatever they commented before.
    """
    refs = [a for a in meta.approvals if a.plan_hash == plan_hash and a.head_sha == head_sha]
    if not refs:
        return []
    latest = latest_review_states(list(client.reviews(pr_number)))
    approvers: list[str] = []
    for ref in refs:
        if ref.user in approvers:
            continue
        word = latest.get(ref.user)
        if word is not None and word.get("state") != "APPROVED":
            continue
        if ref.kind == "comment":
            ok = _comment_holds(client, ref, pr_number=pr_number, plan_hash=plan_hash)
        else:
            ok = (
                word is not None
                and int(word.get("id", -1)) == ref.id
                and word.get("commit_id") == head_sha
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
    "latest_review_states",
]
