"""Whether a comment or a review approves *this* plan. A comment must pin the plan in its own
text (``/averos approve <planHash prefix>``) and be written after the plan for the head was
published; a plain approving review pins only the head (its ``commit_id``) and counts while the
plan is the one published before it was submitted. See :mod:`averos_ci.review.approvals`."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from averos_ci.review.approver import Refusal
from averos_ci.review.comment import APPROVE_COMMAND, PIN_CHARS, approve_line, parse_command
from averos_ci.review.records import HeadFacts


def pin_refusal(body: str | None, *, plan_hash: str) -> Refusal | None:
    """``None`` when ``body`` has ``/averos approve <prefix>`` pinning exactly ``plan_hash``."""
    is_command, prefix = parse_command(body)
    hint = f"To approve the current plan, post exactly:\n\n{approve_line(plan_hash)}"
    if not is_command:
        return Refusal("not an approval command", hint)
    if prefix is None or prefix == "!invalid":
        return Refusal(
            f"an approval must pin the plan it approves: {APPROVE_COMMAND} followed by at "
            f"least {PIN_CHARS} characters of the planHash",
            hint,
        )
    if len(prefix) < PIN_CHARS:
        return Refusal(
            f"the planHash prefix {prefix} is too short (at least {PIN_CHARS} characters)", hint
        )
    if not plan_hash.startswith(prefix):
        return Refusal(f"the planHash prefix {prefix} is not the current plan's", hint)
    return None


def comment_is_approval(
    comment: dict[str, Any], *, plan_hash: str, head_at: str | None
) -> Refusal | None:
    """``None`` when ``comment`` approves ``plan_hash`` for the head whose plan was published
    at ``head_at``: a comment names no commit, so it counts only for the head that was
    current when it was written — one written before that plan (for an earlier head) never
    carries over, whether its approve job is re-run or simply finishes late."""
    refusal = pin_refusal(comment.get("body"), plan_hash=plan_hash)
    if refusal is not None:
        return refusal
    created, updated = comment.get("created_at"), comment.get("updated_at")
    if created and updated and created != updated:
        return Refusal("the approval comment was edited; post a new one")
    if not written_after(created, head_at):
        return Refusal(
            "the approval was written before the plan for the current head was published "
            "(or in the same second: GitHub's clock counts seconds); approve again",
            f"To approve the current plan, post exactly:\n\n{approve_line(plan_hash)}",
        )
    return None


def written_after(created: object, head_at: str | None) -> bool:
    """Whether GitHub's ``created`` time is strictly after ``head_at`` (both from GitHub,
    1-second resolution): the same second is *not* after — refused, never a tie counted."""
    try:
        when = datetime.fromisoformat(str(created))
        since = datetime.fromisoformat(str(head_at))
    except ValueError:
        return False  # no recorded time (an older plan comment): never counted
    return when > since


def latest_review_states(reviews: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Each user's latest state-changing review (approve / request changes / dismissed),
    which is what GitHub counts."""
    latest: dict[str, dict[str, Any]] = {}
    for r in reviews:
        login = (r.get("user") or {}).get("login")
        if login and r.get("state") in ("APPROVED", "CHANGES_REQUESTED", "DISMISSED"):
            latest[login] = r
    return latest


def is_plain_review(review: dict[str, Any]) -> bool:
    """An approving review without ``/averos approve`` in its body (GitHub's button)."""
    return (
        str(review.get("state", "")).upper() == "APPROVED"
        and not parse_command(review.get("body"))[0]
    )


def plain_review_refusal(
    review: dict[str, Any], *, facts: HeadFacts, plan_hash: str, head_sha: str
) -> Refusal | None:
    """``None`` when the plain approving ``review`` approves ``plan_hash``: it is on the head
    that plan is for, the plan is the one the bot last published for that head (its records,
    so computed against the same state and manifest) and the review was submitted after that
    plan was published. Then the plan applied is provably the plan the reviewer was shown.
    Otherwise the review is *outdated*."""
    hint = f"Approve again, or post exactly:\n\n{approve_line(plan_hash)}"
    if review.get("commit_id") != head_sha:
        return Refusal(
            f"the review is for commit {str(review.get('commit_id'))[:12]}, the head is "
            f"{head_sha[:12]}",
            hint,
        )
    if facts.shown != plan_hash:
        shown = (facts.shown or "none")[:12]
        return Refusal(
            f"the plan changed since the review (plan {shown} was shown, the "
            f"plan is now {plan_hash[:12]}): the state or the manifest moved",
            hint,
        )
    if not written_after(review.get("submitted_at"), facts.plan_at):
        return Refusal(
            f"the review was submitted before plan {plan_hash[:12]} was published for this "
            "head (or in the same second)",
            hint,
        )
    return None
