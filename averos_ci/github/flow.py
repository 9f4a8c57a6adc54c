"""``averos-ci github <plan|approve|apply|auto>``: the library entry point of the commands."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import httpx

from averos_ci._actions import annotate
from averos_ci.errors import AverosCIError, InputError
from averos_ci.forge.api import GitHubAPIError
from averos_ci.forge.context import open_context
from averos_ci.forge.events import (
    IssueCommentEvent,
    MergeGroupEvent,
    PullRequestEvent,
    PullRequestReviewEvent,
    PushEvent,
    WorkflowDispatchEvent,
    WorkflowRunEvent,
    load_event,
)


def replan_requested(event: IssueCommentEvent) -> bool:
    from averos_ci.review.outdated import is_plan_command

    return (
        event.action == "created"
        and event.issue.pull_request is not None
        and is_plan_command(event.comment.body)
    )


COMMANDS = ("plan", "approve", "apply", "auto", "gate")
_EXPECTED: dict[str, tuple[type[Any], ...]] = {
    "plan": (PullRequestEvent, WorkflowRunEvent, MergeGroupEvent),
    "approve": (IssueCommentEvent, PullRequestReviewEvent),
    "apply": (PushEvent, WorkflowDispatchEvent),
}
# ``apply`` also takes an approval on a merged pull request (recovery); ``auto`` sends
# comments to ``approve``, which records it and leaves the apply to the apply workflow.
_APPLY_ALSO = (IssueCommentEvent,)


def run_github(
    command: str,
    *,
    config_path: str | Path | None = None,
    environ: Mapping[str, str] | None = None,
    transport: httpx.BaseTransport | None = None,
    apply_fn: Any = None,
) -> Any:
    """Run one step of the GitHub flow for the current Actions event; returns its outcome.

    Raises :class:`~averos_ci.errors.AverosCIError` subclasses (exit codes in the CLI).
    """
    if command not in COMMANDS:
        raise InputError(f"unknown command {command!r}", hint=f"use one of {', '.join(COMMANDS)}")
    if command == "gate":  # the aggregate status; runs without a project config too
        from averos_ci.github.gate_flow import gate_command

        return gate_command(config_path=config_path, environ=environ, transport=transport)
    try:
        ctx = open_context(config_path=config_path, environ=environ, transport=transport)
    except AverosCIError as exc:
        if command in ("plan", "auto"):  # a required averos-ci/plan must still resolve
            from averos_ci.github.plan_flow import fail_unconfigured_plan

            fail_unconfigured_plan(exc, environ=environ, transport=transport)
        raise
    try:
        event = load_event(ctx.env.event_name, ctx.env.event_path)
        if command == "auto":
            command = next(c for c, kinds in _EXPECTED.items() if isinstance(event, kinds))
        elif not isinstance(event, _EXPECTED[command]) and not (
            command == "apply" and isinstance(event, _APPLY_ALSO)
        ):
            raise InputError(
                f"'github {command}' cannot handle the {ctx.env.event_name!r} event",
                hint="use 'averos-ci github auto' to dispatch on the event",
            )
        if command == "plan":
            if isinstance(event, MergeGroupEvent):
                from averos_ci.review.merge_group import check_merge_group

                return check_merge_group(ctx, event)
            if isinstance(event, WorkflowRunEvent):
                from averos_ci.github.fork_flow import plan_fork_run

                return plan_fork_run(ctx, event)
            from averos_ci.github.plan_flow import plan_pull_request

            assert isinstance(event, PullRequestEvent)
            return plan_pull_request(ctx, event)
        if command == "approve":
            from averos_ci.github.approve_flow import approve

            assert isinstance(event, IssueCommentEvent | PullRequestReviewEvent)
            if isinstance(event, IssueCommentEvent) and replan_requested(event):
                from averos_ci.github.replan import replan

                return replan(ctx, event)
            try:
                return approve(ctx, event)
            except GitHubAPIError as exc:
                if exc.status not in (401, 403):
                    raise
                # A review on a fork PR runs with a read-only token: nothing can be recorded.
                annotate(
                    "warning",
                    f"the approval could not be recorded (read-only token?): {exc.message}; "
                    "approve with a '/averos approve' comment instead",
                )
                return None
        if isinstance(event, IssueCommentEvent):
            from averos_ci.github.recovery import apply_on_approval

            return apply_on_approval(ctx, event, apply_fn=apply_fn)
        if isinstance(event, WorkflowDispatchEvent):
            from averos_ci.github.recovery import apply_dispatch

            return apply_dispatch(ctx, event, apply_fn=apply_fn)
        from averos_ci.github.apply_flow import apply_merge

        assert isinstance(event, PushEvent)
        return apply_merge(ctx, event, apply_fn=apply_fn)
    finally:
        ctx.report.flush()
        ctx.close()
