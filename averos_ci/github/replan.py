"""``/averos plan``: re-plan a pull request without a push (e.g. after its plan was marked
outdated because another merge moved the state).

Runs in the approval job (default branch checked out, trusted config): the manifest of the
PR head is read as data (:func:`~averos_ci.github.fork_flow.plan_pull_head`), never checked
out. Allowed for the PR author and for users with the approval permission; bots are refused.
In a monorepo it re-plans the projects the PR already has a plan for, or touches.
"""

from __future__ import annotations

from pydantic import ValidationError

from averos_ci._markdown import escape
from averos_ci.forge.api import GitHubAPIError
from averos_ci.forge.context import FlowContext
from averos_ci.forge.events import IssueCommentEvent, PullRequest
from averos_ci.github.fork_flow import NOTHING, plan_pull_head
from averos_ci.github.plan_comment import PlanOutcome
from averos_ci.review.comment import find_sticky
from averos_ci.review.outdated import PLAN_COMMAND
from averos_ci.review.project_status import touched_projects
from averos_ci.review.trust import trust_base


def replan(ctx: FlowContext, event: IssueCommentEvent) -> PlanOutcome:
    login, number, client = event.comment.user.login, event.issue.number, ctx.client
    raw = client.get_pull(number)
    try:
        pr = PullRequest.model_validate(raw)
    except ValidationError:
        raise GitHubAPIError(f"GET /pulls/{number}: unexpected pull request shape") from None
    trust_base(ctx, pr.base.sha)  # who may ask is decided by the base branch's settings
    if login == ctx.bot_login() or login.endswith("[bot]"):
        print(f"{PLAN_COMMAND} from a bot ({login}): ignored")
        return NOTHING
    if (pr.state or "open") != "open":
        print(f"#{number} is not open: nothing to re-plan")
        return NOTHING
    needed = ctx.settings.approval_permission
    if login != pr.user.login and client.permission(login).rank < needed.rank:
        reply = (
            f"{escape('@' + login)}: not re-planned — `{PLAN_COMMAND}` needs the pull request's "
            f"author or '{needed.value}' permission."
        )
        if not any(
            str(c.get("body") or "") == reply for c in client.issue_comments(number)
        ):  # one reply per user, not a spam channel
            client.create_comment(number, reply)
        print(f"{PLAN_COMMAND} by {login} refused: permission")
        return NOTHING
    sticky = find_sticky(
        client.issue_comments(number), project=ctx.project, bot_login=ctx.bot_login()
    )
    if sticky is None:
        touched = touched_projects(ctx, base=pr.base.sha, head=pr.head.sha, pr_number=number)
        if touched is not None and ctx.project not in touched:
            print(f"#{number} does not touch {ctx.project}: nothing to re-plan")
            return NOTHING
    client.react(event.comment.id, "+1")
    print(f"{PLAN_COMMAND} by {login}: re-planning {ctx.project} for {pr.head.sha[:12]}")
    return plan_pull_head(ctx, pr, pr.head.sha)
