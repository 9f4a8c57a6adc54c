"""``averos-ci github <command>``: :func:`run_github`, the library entry point every command
enters through, and its table — which flow runs for which command and event.

A command is either a *job* that opens its own context (``gate`` runs without a config,
``patch`` without credentials, ``complete`` reads the patch job's result) or a list of
*routes*: the first route whose event type (and condition) matches the Actions event runs.
A new event is one row here and one flow module beside it. Flows are imported when their
route is taken: a job loads the flow it runs, not every flow of the package.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import httpx

from averos_ci._actions import annotate
from averos_ci.errors import AverosCIError, InputError
from averos_ci.forge.api import GitHubAPIError
from averos_ci.forge.context import FlowContext, open_context
from averos_ci.forge.events import (
    Event,
    IssueCommentEvent,
    MergeGroupEvent,
    PullRequestEvent,
    PullRequestReviewEvent,
    PushEvent,
    ScheduleEvent,
    WorkflowDispatchEvent,
    WorkflowRunEvent,
    load_event,
)


@dataclass(frozen=True)
class Options:
    """What a command carries besides the event (the CLI's options, a test's fakes)."""

    config_path: str | Path | None = None
    environment: Mapping[str, str] | None = None  # the Actions variables (default: os.environ)
    transport: httpx.BaseTransport | None = None
    apply_fn: Any = None
    out: Path | None = None  # ``patch``: the result file
    patch_path: Path | None = None  # ``complete``: the patch job's result file


Flow = Callable[[FlowContext, Any, Options], Any]
Job = Callable[[Options], Any]


def always(_event: Any) -> bool:
    return True


@dataclass(frozen=True)
class Route:
    event: type[Event]
    flow: Flow
    when: Callable[[Any], bool] = always

    def matches(self, event: Event) -> bool:
        return isinstance(event, self.event) and self.when(event)


# -- the flows, imported on first use ---------------------------------------------------------


def _plan_pull_request(ctx: FlowContext, event: PullRequestEvent, _o: Options) -> Any:
    from averos_ci.github.plan_flow import plan_pull_request

    return plan_pull_request(ctx, event)


def _plan_fork_run(ctx: FlowContext, event: WorkflowRunEvent, _o: Options) -> Any:
    from averos_ci.github.fork_flow import plan_fork_run

    return plan_fork_run(ctx, event)


def _check_merge_group(ctx: FlowContext, event: MergeGroupEvent, _o: Options) -> Any:
    from averos_ci.github.merge_group_flow import check_merge_group

    return check_merge_group(ctx, event)


def replan_requested(event: IssueCommentEvent) -> bool:
    from averos_ci.review.outdated import is_plan_command

    return (
        event.action == "created"
        and event.issue.pull_request is not None
        and is_plan_command(event.comment.body)
    )


def _replan(ctx: FlowContext, event: IssueCommentEvent, _o: Options) -> Any:
    from averos_ci.github.replan import replan

    return replan(ctx, event)


def _approve(
    ctx: FlowContext, event: IssueCommentEvent | PullRequestReviewEvent, _o: Options
) -> Any:
    from averos_ci.github.approve_flow import approve

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


def _apply_merge(ctx: FlowContext, event: PushEvent, o: Options) -> Any:
    from averos_ci.github.apply_flow import apply_merge

    return apply_merge(ctx, event, apply_fn=o.apply_fn)


def _apply_dispatch(ctx: FlowContext, event: WorkflowDispatchEvent, o: Options) -> Any:
    from averos_ci.github.apply_flow import apply_dispatch

    return apply_dispatch(ctx, event, apply_fn=o.apply_fn)


def _apply_on_approval(ctx: FlowContext, event: IssueCommentEvent, o: Options) -> Any:
    from averos_ci.github.apply_flow import apply_on_approval

    return apply_on_approval(ctx, event, apply_fn=o.apply_fn)


def _drift(ctx: FlowContext, _event: ScheduleEvent | WorkflowDispatchEvent, _o: Options) -> Any:
    from averos_ci.github.drift_flow import drift_check

    return drift_check(ctx)


# -- the jobs that open their own context -----------------------------------------------------


def _gate(o: Options) -> Any:
    from averos_ci.github.aggregate_gate_flow import gate_command

    return gate_command(config_path=o.config_path, environ=o.environment, transport=o.transport)


def _patch(o: Options) -> Any:
    from averos_ci.github.patch_flow import patch_command

    return patch_command(config_path=o.config_path, out=o.out, environ=o.environment)


def _complete(o: Options) -> Any:
    from averos_ci.github.complete_flow import complete_command
    from averos_ci.github.patch_flow import default_result_path

    return complete_command(
        config_path=o.config_path,
        patch_path=o.patch_path or default_result_path(o.environment),
        environ=o.environment,
        transport=o.transport,
    )


# -- the table --------------------------------------------------------------------------------

ROUTES: Mapping[str, tuple[Route, ...]] = {
    "plan": (
        Route(PullRequestEvent, _plan_pull_request),
        Route(WorkflowRunEvent, _plan_fork_run),
        Route(MergeGroupEvent, _check_merge_group),
    ),
    "approve": (
        Route(IssueCommentEvent, _replan, when=replan_requested),
        Route(IssueCommentEvent, _approve),
        Route(PullRequestReviewEvent, _approve),
    ),
    "apply": (
        Route(PushEvent, _apply_merge),
        Route(WorkflowDispatchEvent, _apply_dispatch),
        # an approval on a merged pull request (recovery)
        Route(IssueCommentEvent, _apply_on_approval),
    ),
    "drift": (
        Route(ScheduleEvent, _drift),
        Route(WorkflowDispatchEvent, _drift),
    ),
}
# ``auto`` picks the command by the event alone; a comment goes to ``approve``, which records
# it and leaves the apply to the apply workflow.
AUTO: Mapping[type[Event], str] = {
    PullRequestEvent: "plan",
    WorkflowRunEvent: "plan",
    MergeGroupEvent: "plan",
    IssueCommentEvent: "approve",
    PullRequestReviewEvent: "approve",
    PushEvent: "apply",
    WorkflowDispatchEvent: "apply",
    ScheduleEvent: "drift",
}
JOBS: Mapping[str, Job] = {"gate": _gate, "patch": _patch, "complete": _complete}
# ``plan`` and ``auto`` post a failed averos-ci/plan status when the config cannot be read: a
# required status must still resolve.
RESOLVES_PLAN_STATUS = frozenset({"plan", "auto"})
COMMANDS = ("plan", "approve", "apply", "auto", "gate", "patch", "complete", "drift")
# A matrix entry may be a batch of projects (``averos-ci projects`` above 256): its ``config``
# holds their config files one a line, and every command of a matrix job runs once per config
# (``gate`` is one job over all projects: it takes no batch).
BATCHED = frozenset({"plan", "approve", "apply", "auto", "patch", "complete", "drift"})


def route(command: str, event: Event) -> Route | None:
    """The route ``command`` takes for ``event`` (``auto``: by the event's type alone)."""
    if command == "auto":
        command = AUTO.get(type(event), "")
    return next((r for r in ROUTES.get(command, ()) if r.matches(event)), None)


def run_github(
    command: str,
    *,
    config_path: str | Path | None = None,
    environ: Mapping[str, str] | None = None,
    transport: httpx.BaseTransport | None = None,
    apply_fn: Any = None,
    out: Path | None = None,
    patch_path: Path | None = None,
) -> Any:
    """Run one step of the GitHub flow for the current Actions event; returns its outcome.
    ``out`` is ``patch``'s result file, ``patch_path`` the one ``complete`` reads (default for
    both: ``$RUNNER_TEMP/averos-ci-patch/averos-patch.json``).

    Raises :class:`~averos_ci.errors.AverosCIError` subclasses (exit codes in the CLI).
    """
    if command not in COMMANDS:
        raise InputError(f"unknown command {command!r}", hint=f"use one of {', '.join(COMMANDS)}")
    options = Options(config_path, environ, transport, apply_fn, out, patch_path)
    configs = [c.strip() for c in str(config_path or "").split("\n") if c.strip()]
    if command in BATCHED and len(configs) > 1:
        return _run_batch(command, configs, options)
    if command in JOBS:
        return JOBS[command](options)
    return _run_one(command, options)


def _run_one(command: str, o: Options) -> Any:
    """One project's routed command: the flow its route takes for the Actions event."""
    try:
        ctx = open_context(config_path=o.config_path, environ=o.environment, transport=o.transport)
    except AverosCIError as exc:
        if command in RESOLVES_PLAN_STATUS:
            from averos_ci.github.plan_flow import fail_unconfigured_plan

            fail_unconfigured_plan(exc, environ=o.environment, transport=o.transport)
        raise
    try:
        event = load_event(ctx.env.event_name, ctx.env.event_path)
        taken = route(command, event)
        if taken is None:
            raise InputError(
                f"'github {command}' cannot handle the {ctx.env.event_name!r} event",
                hint="use 'averos-ci github auto' to dispatch on the event",
            )
        return taken.flow(ctx, event, o)
    finally:
        ctx.report.flush()
        ctx.close()


def _run_batch(command: str, configs: list[str], options: Options) -> list[Any]:
    """Each config of a batch in turn (:func:`averos_ci.github.batch.run_batch`).

    ``patch`` writes the k-th project's result beside the one-project file, as
    ``averos-patch-<k>.json`` (k from 1, the config's line), and ``complete`` reads it from
    there: both jobs get the same matrix entry. The batch's ``patch-path`` output is then the
    folder (upload it whole)."""
    from averos_ci.github.batch import batch_result_path, run_batch

    patch_file = None
    if command in ("patch", "complete"):
        from averos_ci.github.patch_flow import default_result_path

        chosen = options.out if command == "patch" else options.patch_path
        patch_file = chosen or default_result_path(options.environment)

    def run_one(k: int, config: str) -> Any:
        one = replace(options, config_path=config)
        if patch_file is not None:
            numbered = batch_result_path(patch_file, k)
            one = replace(one, out=numbered, patch_path=numbered)
        return JOBS[command](one) if command in JOBS else _run_one(command, one)

    return run_batch(configs, run_one, environ=options.environment)
