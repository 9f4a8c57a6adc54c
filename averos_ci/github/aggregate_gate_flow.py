"""``averos-ci github gate``: recompute the aggregate status for the event's commit (run after
the plan/approve matrix), with or without a config at the repository root."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import httpx

from averos_ci.config import CONFIG_FILE_NAME, default_config
from averos_ci.forge.actions_env import ActionsEnv, StepReport
from averos_ci.forge.context import FlowContext, api_client, open_context
from averos_ci.forge.events import (
    Event,
    IssueCommentEvent,
    MergeGroupEvent,
    PullRequestEvent,
    PullRequestReviewEvent,
    load_event,
)
from averos_ci.forge.settings import GitHubSettings
from averos_ci.review.merge_group import fetch_base
from averos_ci.review.project_status import AggregateStatus, refresh_aggregate
from averos_ci.review.summary import publish_summary
from averos_ci.review.trust import trust_base
from averos_ci.statebranch.state_branch import open_repo


def gate_command(
    *,
    config_path: str | Path | None = None,
    environ: Mapping[str, str] | None = None,
    transport: httpx.BaseTransport | None = None,
) -> AggregateStatus | None:
    """``averos-ci github gate``: recompute the aggregate status for the event's commit (run
    after the plan/approve matrix). Without a config file at the repository root (a monorepo)
    the default settings apply: every project must then use the default ``statusContext``."""
    env = ActionsEnv.from_environ(environ)
    start = env.workspace if env.workspace and env.workspace.is_dir() else Path.cwd()
    root = Path(open_repo(start).working_tree_dir or start).resolve()
    if config_path is None and not (root / CONFIG_FILE_NAME).is_file():
        env.mask_token()
        settings = GitHubSettings()
        ctx = FlowContext(
            env=env,
            config=default_config(root),
            settings=settings,
            repo_root=root,
            client=api_client(env, settings, transport=transport),
            report=StepReport(env),
        )
        trusted = False
    else:
        ctx = open_context(config_path=config_path, environ=environ, transport=transport)
        trusted = True
    try:
        return _gate_for_event(ctx, load_event(env.event_name, env.event_path), trusted=trusted)
    finally:
        ctx.report.flush()
        ctx.close()


def _gate_for_event(ctx: FlowContext, event: Event, *, trusted: bool) -> AggregateStatus | None:
    number: int | None = None
    if isinstance(event, PullRequestEvent):
        pr = event.pull_request
        head, base, number = pr.head.sha, pr.base.sha, pr.number
    elif isinstance(event, IssueCommentEvent) and event.issue.pull_request is None:
        print("a comment on an issue, not a pull request: no status to gate")
        return None
    elif isinstance(event, IssueCommentEvent | PullRequestReviewEvent):
        number = (
            event.issue.number
            if isinstance(event, IssueCommentEvent)
            else event.pull_request.number
        )
        data = ctx.client.get_pull(number)
        head = str((data.get("head") or {}).get("sha") or "")
        base = str((data.get("base") or {}).get("sha") or "")
    elif isinstance(event, MergeGroupEvent):
        group = event.merge_group
        head, base = group.head_sha, group.base_sha or fetch_base(ctx, group.base_ref)
    else:
        print(f"'{ctx.env.event_name}' event: no pull request status to gate")
        return None
    if trusted:
        trust_base(ctx, base or None)  # the status name is the base branch's
    gate = refresh_aggregate(ctx, head, base=base or None, pr_number=number, settle=True)
    if number is not None:  # many projects: one summary comment for the whole review
        publish_summary(ctx, number, gate.statuses, gate.expected)
    ctx.report.set(approved=gate.state == "success")
    return gate
