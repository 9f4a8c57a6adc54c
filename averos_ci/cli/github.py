"""``averos-ci github <plan|approve|apply|auto|gate>``: the GitHub Actions flow."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from averos_ci.cli._app import CONTEXT_SETTINGS, app

github_app = typer.Typer(
    name="github",
    help="Plan on pull request, approve, apply on merge (inside GitHub Actions).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings=CONTEXT_SETTINGS,
)
app.add_typer(github_app, name="github")

ConfigOption = Annotated[
    Path | None,
    typer.Option("--config", help="Config file (default: averos.config.json at the repo root)."),
]


def _run(command: str, config: Path | None) -> int:
    from averos_ci.github import run_github
    from averos_ci.github.plan_flow import PlanOutcome

    outcome = run_github(command, config_path=config)
    if isinstance(outcome, PlanOutcome) and outcome.plan and not outcome.plan.applicable:
        # The same code as `plan --detailed-exitcode` and `run` for a conflicting plan; the
        # comment and the failure status have been posted already.
        from averos_ci.errors import PlanConflicts

        raise PlanConflicts(
            f"plan {outcome.plan.plan_hash[:12]} has conflicts and cannot be applied",
            hint="see the plan comment: revert those changes, or re-add the elements under "
            "new names",
        )
    return 0


@github_app.command()
def plan(config: ConfigOption = None) -> int:
    """pull_request: post the plan (sticky comment) and the averos-ci/plan statuses;
    merge_group: check that the group's plan is approved."""
    return _run("plan", config)


@github_app.command()
def approve(config: ConfigOption = None) -> int:
    """issue_comment '/averos approve' or an approving pull_request_review."""
    return _run("approve", config)


@github_app.command()
def apply(config: ConfigOption = None) -> int:
    """push to the default branch: apply the merged, approved plan."""
    return _run("apply", config)


@github_app.command()
def auto(config: ConfigOption = None) -> int:
    """Dispatch on $GITHUB_EVENT_NAME (plan / approve / apply)."""
    return _run("auto", config)


@github_app.command()
def gate(config: ConfigOption = None) -> int:
    """After the plan/approve matrix: set the aggregate averos-ci/plan status of the change."""
    return _run("gate", config)
