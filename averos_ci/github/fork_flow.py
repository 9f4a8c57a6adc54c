"""``workflow_run`` → comment the plan of a fork pull request, safely.

The fork's own ``pull_request`` run has a read-only token and can only fill the job summary.
This privileged run starts from the default branch (trusted workflow, config and averos-ci),
finds the PR by the run's head, reads **only the manifest file** of that head as data — the
fork's tree is never checked out and none of its code runs — and plans and comments with the
repository's token. With a regenerating adapter, its ``complete`` step then adds the code
change the fork's own (token-less) patch job computed, read as data and bound to this head,
semantic plan and base state (:mod:`averos_ci.github.complete_flow`).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from pydantic import ValidationError

from averos_ci.errors import InputError
from averos_ci.forge.api import GitHubAPIError
from averos_ci.forge.context import FlowContext
from averos_ci.forge.events import PullRequest, WorkflowRunEvent
from averos_ci.github.patch_result import LoadedPatch
from averos_ci.github.plan_comment import PlanOutcome
from averos_ci.github.plan_flow import plan_for
from averos_ci.review.pushers import proven_fork_pusher

NOTHING = PlanOutcome(None, None, None, False, False)


def plan_fork_run(ctx: FlowContext, event: WorkflowRunEvent) -> PlanOutcome:
    found = run_pull(ctx, event)
    if found is None:
        return NOTHING
    pr, pusher = found
    return plan_pull_head(ctx, pr, pr.head.sha, pusher=pusher)


def run_pull(
    ctx: FlowContext, event: WorkflowRunEvent, *, doing: str = "plan"
) -> tuple[PullRequest, str | None] | None:
    """The open pull request the ``pull_request`` run of ``event`` planned (found by the run's
    head, at the run's head sha) and who pushed that head; ``None`` (why, printed) when there
    is none. ``doing``: what is then not done, for the message."""
    run = event.workflow_run
    if run.event != "pull_request" or run.head_repository is None or not run.head_branch:
        print(f"workflow_run of a '{run.event}' run: nothing to {doing}")
        return None
    head = f"{run.head_repository.owner.login}:{run.head_branch}"
    found = [
        p
        for p in ctx.client.paginate(
            f"/repos/{ctx.env.repository}/pulls", params={"state": "open", "head": head}
        )
        if (p.get("head") or {}).get("sha") == run.head_sha
    ]
    if len(found) != 1:
        print(f"no open pull request has head {head} at {run.head_sha[:12]}: nothing to {doing}")
        return None
    try:
        pr = PullRequest.model_validate(found[0])
    except ValidationError:
        raise GitHubAPIError("GET /pulls: unexpected pull request shape") from None
    # the pull_request run's actor is who pushed the head only for a push's run (opened,
    # synchronize): the payload does not say which, the timeline proves it or nobody is
    # recorded (averos_ci.review.pushers.proven_fork_pusher)
    actor = run.actor.login if run.actor else None
    timeline = ctx.client.issue_timeline(pr.number)
    return pr, proven_fork_pusher(timeline, head_sha=run.head_sha, actor=actor)


def plan_pull_head(
    ctx: FlowContext,
    pr: PullRequest,
    head_sha: str,
    *,
    pusher: str | None = None,
    completion: LoadedPatch | None = None,
) -> PlanOutcome:
    """Plan the manifest of ``pr`` at ``head_sha``, read as data (never checked out), and
    publish it with the repository's token (also ``/averos plan``). ``completion``: the patch
    job's result, read as data (:func:`~averos_ci.github.plan_flow.plan_for`)."""
    try:
        rel = ctx.config.manifest_path.resolve().relative_to(ctx.repo_root)
    except ValueError:
        raise InputError(
            "manifestPath is outside the repository", path=ctx.config.config_path
        ) from None
    data = ctx.state_branch().read_pull_file(pr.number, head_sha, rel.as_posix())
    if data is None:
        print(f"pull request #{pr.number} has no {rel.as_posix()}: nothing to plan")
        return NOTHING
    with tempfile.TemporaryDirectory(prefix="averos-ci-fork-") as tmp:
        manifest = Path(tmp) / rel.name  # keep the name: the suffix selects JSON or YAML
        manifest.write_bytes(data)
        return plan_for(
            ctx,
            pr,
            manifest_path=manifest,
            trusted_run=True,
            pusher=pusher,
            completion=completion,
        )
