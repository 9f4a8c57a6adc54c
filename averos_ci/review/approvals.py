"""Who approves a plan now (:func:`approval_view`), and the apply's demand for it
(:func:`require_approval`). Who may approve is :mod:`averos_ci.review.approver`; whether a
comment or a review pins this plan is :mod:`averos_ci.review.pins`.

An approval is never a stored flag: whenever it matters, the pull request's comments and
reviews are re-read from GitHub and re-checked (author, body or review state and commit, the
approver's *current* permission). The sticky comment's metadata (its approval pointers,
``headAt``, ``planAt``) is a display cache at most: anyone with write access can edit the
bot's comment. When the plan for a head was published, which plan is shown and who pushed
the head come from the bot's own commit statuses (:mod:`averos_ci.review.records`).

An approval must pin the plan in its own text,
``/averos approve <planHash prefix>`` with at least :data:`PIN_CHARS` hex characters, and that
prefix is matched against the plan computed at the moment it is checked. A *plain* approving
review pins only the head (its ``commit_id``): it counts while the plan is the one published
before it was submitted (same planHash, so same state and manifest), and is outdated after.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from averos_ci.forge.context import FlowContext
from averos_ci.forge.protocol import Forge
from averos_ci.forge.settings import GitHubSettings, Permission
from averos_ci.plan import ExecutionPlan
from averos_ci.review.approver import Refusal, check_approver, is_agent
from averos_ci.review.comment import parse_command
from averos_ci.review.owners import Owners, project_owners
from averos_ci.review.pins import (
    comment_is_approval,
    is_plain_review,
    latest_review_states,
    pin_refusal,
    plain_review_refusal,
)
from averos_ci.review.policy_check import enforce_requirements, refuse_violations
from averos_ci.review.project_status import project_context
from averos_ci.review.records import HeadFacts, head_facts
from averos_ci.statebranch.errors import ApplyRefused


@dataclass(frozen=True)
class ApprovalView:
    """Who approves a plan now, and whose plain approving review no longer counts."""

    approvers: tuple[str, ...] = ()
    outdated: tuple[str, ...] = ()


@dataclass(frozen=True)
class Approval:
    """What :func:`require_approval` found: the planHash to execute and who approved it (the
    approvers who meet the policy, in the order of the pull request's comments and reviews)."""

    plan_hash: str
    approvers: tuple[str, ...]


def approval_view(
    client: Forge,
    *,
    pr_number: int,
    pr_author: str,
    plan_hash: str,
    head_sha: str,
    settings: GitHubSettings,
    project: str,
    bot_login: str,
    facts: HeadFacts | None = None,
    owners: Owners | None = None,
) -> ApprovalView:
    """Approvals of exactly (plan_hash, head_sha) that hold now, re-derived from GitHub.

    Every comment of the pull request is read: one counts if it pins ``plan_hash``, is
    unedited and was written after the first plan for ``head_sha`` was published (the bot's
    records, ``facts``). A pinned review counts if it is the user's latest and approves
    ``head_sha`` (its ``commit_id``). Plain approving reviews count under
    :func:`plain_review_refusal`, unless ``plainReviewApprovals`` is off.

    A user whose latest review requests changes (or whose approving review was dismissed)
    does not count, whatever they commented before. The approver rules
    (:func:`check_approver`, with the project's ``owners`` at the base commit) apply to every
    kind.
    """
    if facts is None:
        facts = head_facts(
            client,
            head_sha,
            context=project_context(settings.status_context, project),
            pr_number=pr_number,
            bot_login=bot_login,
        )
    latest = latest_review_states(list(client.reviews(pr_number)))
    candidates: list[str] = []

    def standing(login: str) -> bool:
        word = latest.get(login)
        return login not in candidates and (word is None or word.get("state") == "APPROVED")

    for comment in client.issue_comments(pr_number):
        login = str((comment.get("user") or {}).get("login") or "")
        if not login or login == bot_login or not standing(login):
            continue
        if comment_is_approval(comment, plan_hash=plan_hash, head_at=facts.head_at) is None:
            candidates.append(login)
    for login, review in latest.items():
        if (
            standing(login)
            and review.get("state") == "APPROVED"
            and parse_command(review.get("body"))[0]
            and review.get("commit_id") == head_sha
            and pin_refusal(review.get("body"), plan_hash=plan_hash) is None
        ):
            candidates.append(login)
    outdated: list[str] = []
    if settings.plain_review_approvals:
        for login, review in latest.items():
            if login in candidates or not is_plain_review(review):
                continue
            refused = plain_review_refusal(
                review, facts=facts, plan_hash=plan_hash, head_sha=head_sha
            )
            (outdated if refused else candidates).append(login)
    known = facts

    def may(login: str) -> bool:
        refusal = check_approver(
            client,
            login=login,
            pr_number=pr_number,
            pr_author=pr_author,
            settings=settings,
            facts=known,
            head_sha=head_sha,
            owners=owners,
        )
        return refusal is None

    # Only people who could approve are told their review is outdated.
    return ApprovalView(
        tuple(x for x in candidates if may(x)), tuple(x for x in outdated if may(x))
    )


def approved_target(facts: HeadFacts, plan: ExecutionPlan) -> str:
    """The planHash an approval of ``plan`` must pin: the plan itself, or — ``plan`` being the
    semantic plan of a regenerating adapter — the full plan shown for it (its code change
    included, :mod:`averos_ci.github.complete_flow`). The apply then executes exactly that
    full plan or refuses (``expected_plan_hash``)."""
    if facts.semantic is not None and facts.semantic == plan.plan_hash and facts.shown:
        return facts.shown
    return plan.plan_hash


def require_approval(
    ctx: FlowContext, pr: dict[str, Any] | None, plan: ExecutionPlan, sha: str
) -> Approval:
    """At apply: refuse (:class:`ApplyRefused`) unless ``plan`` is approved on the merged PR.
    Returns the approved planHash to execute (``plan``'s, or the full plan's whose code change
    completes it: :func:`approved_target`) and its approvers, whom the run record names."""
    if pr is None:
        raise ApplyRefused(
            f"commit {sha[:12]} is not the merge of a pull "
            f"request, and plan {plan.plan_hash[:12]} has changes: nothing is "
            "applied without an approved plan",
            hint="change the manifest through a pull request",
        )
    policy = refuse_violations(ctx, plan)  # whoever approved it
    number = int(pr["number"])
    head = str((pr.get("head") or {}).get("sha", ""))
    author = str((pr.get("user") or {}).get("login", ""))
    facts = head_facts(
        ctx.client,
        head,
        context=project_context(ctx.settings.status_context, ctx.project),
        pr_number=number,
        bot_login=ctx.bot_login(),
    )
    if facts.shown is None:
        raise ApplyRefused(
            f"pull request #{number} has no averos-ci plan for head {head[:12]}: plan "
            f"{plan.plan_hash[:12]} was never reviewed"
        )
    if facts.pending:
        raise ApplyRefused(
            f"the code change of plan {plan.plan_hash[:12]} on #{number} was still being "
            "computed when the pull request was merged: it was never shown, so never approved",
            hint="re-run the pull request's plan workflow (its latest run for the head), "
            "approve the completed plan, and re-run the apply",
        )
    target = approved_target(facts, plan)
    # the owners of the branch merged into, as the approve step read them
    owners = project_owners(ctx, str((pr.get("base") or {}).get("sha") or "") or None)
    view = approval_view(
        ctx.client,
        pr_number=number,
        pr_author=author,
        plan_hash=target,
        head_sha=head,
        settings=ctx.settings,
        project=ctx.project,
        bot_login=ctx.bot_login(),
        facts=facts,
        owners=owners,
    )
    if view.approvers:
        approvers = enforce_requirements(ctx, plan, list(view.approvers), policy)
        print(f"plan {target} approved by {', '.join(approvers)}")
        return Approval(target, tuple(approvers))
    outdated = (
        f" (outdated approving review(s) by {', '.join(view.outdated)}: the plan changed "
        "since they were submitted)"
        if view.outdated
        else ""
    )
    if facts.shown != target:
        raise ApplyRefused(
            f"the plan shown on #{number} ({facts.shown[:12]}) is not the plan "
            f"of this merge ({plan.plan_hash[:12]}): the state branch or the manifest changed"
            + outdated,
            hint="open a pull request to re-plan, approve the new plan and merge it",
        )
    who = f"a user with {ctx.settings.approval_permission.value} permission"
    if owners is not None:
        who += f" who owns {ctx.project} ({', '.join(owners.names)}, {owners.source})"
    raise ApplyRefused(
        f"plan {plan.plan_hash[:12]} on #{number} has no valid approval for head {head[:12]}"
        + outdated,
        hint=f"{who} must approve before merging",
    )


__all__ = [
    "Approval",
    "ApprovalView",
    "Owners",
    "Permission",
    "Refusal",
    "approval_view",
    "approved_target",
    "check_approver",
    "comment_is_approval",
    "is_agent",
    "is_plain_review",
    "latest_review_states",
    "pin_refusal",
    "plain_review_refusal",
    "project_owners",
    "require_approval",
]
