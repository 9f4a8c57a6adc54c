"""``averos-ci github <plan|patch|complete|approve|apply|auto|gate|drift>``: the GitHub flow.

Each command is one call of :func:`averos_ci.github.run_github` (the routes table).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

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

_REVERT_HINT = "see the plan comment: revert those changes, or re-add the elements under new names"

ConfigOption = Annotated[
    Path | None,
    typer.Option("--config", help="Config file (default: averos.config.json at the repo root)."),
]
# a matrix entry's config: above 256 changed projects a batch, one config a line
BatchConfigOption = Annotated[
    str | None,
    typer.Option(
        "--config",
        help="Config file (default: averos.config.json at the repo root); several, one a "
        "line, for a batch of projects (each runs in turn).",
    ),
]


def _run(
    command: str, config: str | Path | None, *, conflict_hint: str = _REVERT_HINT, **opts: Any
) -> int:
    from averos_ci.github import run_github
    from averos_ci.github.plan_comment import PlanOutcome

    outcome = run_github(command, config_path=config, **opts)
    # a batch of projects (a multi-line --config) returns each project's outcome, all run
    outcomes = outcome if isinstance(outcome, list) else [outcome]
    conflicting = [
        o.plan.plan_hash[:12]
        for o in outcomes
        if isinstance(o, PlanOutcome) and o.plan and not o.plan.applicable
    ]
    if conflicting:
        # The same code as `plan --detailed-exitcode` and `run` for a conflicting plan; the
        # comment and the failure status have been posted already.
        from averos_ci.errors import PlanConflicts

        plans = "plans" if len(conflicting) > 1 else "plan"
        raise PlanConflicts(
            f"{plans} {', '.join(conflicting)} {'have' if len(conflicting) > 1 else 'has'} "
            "conflicts and cannot be applied",
            hint=conflict_hint,
        )
    return 0


@github_app.command()
def plan(config: BatchConfigOption = None) -> int:
    """pull_request: post the plan (sticky comment) and the averos-ci/plan statuses;
    merge_group: check that the group's plan is approved."""
    return _run("plan", config)


@github_app.command()
def approve(config: BatchConfigOption = None) -> int:
    """issue_comment '/averos approve' or an approving pull_request_review."""
    return _run("approve", config)


@github_app.command()
def apply(config: BatchConfigOption = None) -> int:
    """push to the default branch: apply the merged, approved plan."""
    return _run("apply", config)


@github_app.command()
def auto(config: BatchConfigOption = None) -> int:
    """Dispatch on $GITHUB_EVENT_NAME (plan / approve / apply)."""
    return _run("auto", config)


@github_app.command()
def drift(config: BatchConfigOption = None) -> int:
    """schedule / workflow_dispatch: check the project for drift and merged but unapplied
    changes, and keep its one 'averos-drift' issue up to date (opened, updated, closed)."""
    return _run("drift", config)


@github_app.command()
def gate(config: ConfigOption = None) -> int:
    """After the plan/approve matrix: set the aggregate averos-ci/plan status of the change."""
    return _run("gate", config)


@github_app.command()
def patch(
    config: BatchConfigOption = None,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            help="Result file (default: $RUNNER_TEMP/averos-ci-patch/averos-patch.json); a "
            "batch writes the k-th project's as averos-patch-<k>.json beside it.",
        ),
    ] = None,
) -> int:
    """pull_request, in a job without credentials: compute the plan's code change (the
    generator runs here) and write it to a result file for 'github complete'."""
    return _run("patch", config, out=out)


@github_app.command()
def complete(
    config: BatchConfigOption = None,
    patch_file: Annotated[
        Path | None,
        typer.Option(
            "--patch",
            help="The patch job's result file (default: "
            "$RUNNER_TEMP/averos-ci-patch/averos-patch.json); a batch reads the k-th "
            "project's as averos-patch-<k>.json beside it.",
        ),
    ] = None,
) -> int:
    """pull_request (a fork's: workflow_run), after 'github patch': read its result as data,
    check it is bound to this head and plan, and publish the plan with its code change (the
    planHash approvals pin)."""
    return _run(
        "complete",
        config,
        patch_path=patch_file,
        conflict_hint="see the plan comment: the code change collides with edits in the pull "
        "request's workspace, or the generator cannot generate the manifest",
    )
