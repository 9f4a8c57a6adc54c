"""``averos-ci state <reset|adopt|show|abandon|rollback>`` and ``averos-ci drift``."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from averos_ci.cli._app import app

if TYPE_CHECKING:
    from averos_ci.config import RunConfig

state_app = typer.Typer(
    name="state",
    help="Inspect or change the applied state: the local file (reset, adopt) or the state "
    "branch (show, abandon, rollback); a local project's show and rollback read the state "
    "file and its git history.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)
app.add_typer(state_app, name="state")

ConfigOption = Annotated[
    Path | None, typer.Option("--config", help="Config file (default: ./averos.config.json).")
]


def _config(config: Path | None, state: Path | None = None) -> RunConfig:
    from averos_ci.config import load_config

    return load_config(config, required=config is not None).with_overrides(state_path=state)


@state_app.command()
def reset(
    config: ConfigOption = None,
    state: Annotated[Path | None, typer.Option(help="Overrides statePath.")] = None,
) -> int:
    """Start over from an empty state (the file is kept aside as a backup)."""
    from averos_ci.stateops.local import reset_state

    print(reset_state(_config(config, state)).message)
    return 0


@state_app.command()
def adopt(
    config: ConfigOption = None,
    state: Annotated[Path | None, typer.Option(help="Overrides statePath.")] = None,
    adapter: Annotated[
        str | None, typer.Option(help="Adapter to record (default: the configured one).")
    ] = None,
) -> int:
    """Record ADAPTER as the producer of the state and re-fingerprint the workspace."""
    from averos_ci.stateops.local import adopt_state

    print(adopt_state(_config(config, state), adapter=adapter).message)
    return 0


class DriftFormat(StrEnum):
    TEXT = "text"
    JSON = "json"
    MARKDOWN = "markdown"


@app.command()
def drift(
    config: ConfigOption = None,
    state: Annotated[Path | None, typer.Option(help="Overrides statePath.")] = None,
    output_format: Annotated[
        DriftFormat, typer.Option("--format", help="text, json or markdown.")
    ] = DriftFormat.TEXT,
    detailed_exitcode: Annotated[
        bool,
        typer.Option(
            "--detailed-exitcode",
            help="Exit 0 no drift, 4 drift (as plan's changes), 5 unresolved conflict markers.",
        ),
    ] = False,
) -> int:
    """Compare the workspace with the state's fingerprint (for scheduled jobs)."""
    import sys

    from averos_ci.errors import ExitCode
    from averos_ci.state.drift import render_drift
    from averos_ci.stateops.local import drift_report

    report = drift_report(_config(config, state))  # errors keep their codes (2, 3)
    sys.stdout.write(render_drift(report, output_format.value))
    if detailed_exitcode and report is not None and report.markers:
        return int(ExitCode.CONFLICTS)  # the workspace cannot be applied until they are resolved
    drifted = detailed_exitcode and report is not None and report.has_drift
    return int(ExitCode.CHANGES if drifted else ExitCode.OK)


# -- the state branch (averos_ci.stateops) ---------------------------------------------------

BranchConfigOption = Annotated[
    Path | None,
    typer.Option("--config", help="Config file (default: averos.config.json at the repo root)."),
]
ProjectOption = Annotated[
    str | None, typer.Option(help="Project (default: the config's github.project).")
]
ReasonOption = Annotated[
    str, typer.Option("--reason", help="Why (recorded in the commit and the record).")
]
LocalOption = Annotated[
    bool,
    typer.Option(
        "--local",
        help="The local state file and its git history, not the state branch (the default "
        "when the repository has no remote to fetch the state branch from).",
    ),
]


class MergeConflicts(StrEnum):  # as `run`'s option (averos_ci.cli.run)
    REFUSE = "refuse"
    MARKERS = "markers"


class ShowFormat(StrEnum):
    TEXT = "text"
    JSON = "json"


@state_app.command()
def show(
    config: BranchConfigOption = None,
    project: ProjectOption = None,
    output_format: Annotated[ShowFormat, typer.Option("--format", help="text or json.")] = (
        ShowFormat.TEXT
    ),
    local: LocalOption = False,
) -> int:
    """The state on the state branch (what is applied, by which run) and any claim; for a
    local project, the state file and its versions in git."""
    import json

    from averos_ci.stateops.operation import show_state
    from averos_ci.stateops.target import local_config, open_target

    cfg = local_config(config_path=config, local=local)
    if cfg is not None:
        from averos_ci.stateops.local_history import read_history

        history = read_history(cfg)
        if output_format is ShowFormat.JSON:
            print(json.dumps(history.to_json(), indent=2, sort_keys=True))
        else:
            print(history.render_text(), end="")
        return 0
    view = show_state(open_target(config_path=config, project=project))
    if output_format is ShowFormat.JSON:
        print(json.dumps(view.to_json(), indent=2, sort_keys=True))
    else:
        print(view.render_text(), end="")
    return 0


@state_app.command()
def abandon(
    reason: ReasonOption,
    config: BranchConfigOption = None,
    project: ProjectOption = None,
) -> int:
    """Drop an interrupted apply: its claim, checkpoints and partial workspace (one commit)."""
    from averos_ci.stateops.operation import abandon_apply
    from averos_ci.stateops.target import open_target

    print(abandon_apply(open_target(config_path=config, project=project), reason=reason).message)
    return 0


@state_app.command()
def rollback(
    to: Annotated[
        str | None,
        typer.Option(
            "--to",
            help="Applied commit (7+ hex digits) or run id; a local project: a commit of the "
            "state file or a serial (default: the state before the last apply).",
        ),
    ] = None,
    reason: Annotated[
        str | None,
        typer.Option("--reason", help="Why (recorded on the state branch; required there)."),
    ] = None,
    config: BranchConfigOption = None,
    project: ProjectOption = None,
    yes: Annotated[bool, typer.Option("--yes", help="Write it (default: only print).")] = False,
    local: LocalOption = False,
    merge_conflicts: Annotated[
        MergeConflicts,
        typer.Option(
            help="A local rollback's merge conflicts with your edits: refuse (exit 5, nothing "
            "written) or write git conflict markers into the files.",
        ),
    ] = MergeConflicts.REFUSE,
) -> int:
    """Roll the state back to what it was after an earlier applied commit (prints the plan).
    A local project: apply the manifest of the state before the last apply (or --to) again,
    merged into the workspace with your edits kept."""
    from averos_ci.errors import ExitCode, InputError
    from averos_ci.stateops.target import local_config, open_target

    cfg = local_config(config_path=config, local=local)
    if cfg is not None:
        from averos_ci.stateops.local_rollback import rollback_local

        done = rollback_local(cfg, to=to, yes=yes, merge_conflicts=merge_conflicts.value)
        print(done.render_text(), end="")
        if done.plan is not None and not done.plan.applicable:
            return int(ExitCode.CONFLICTS)  # the dry run of a rollback that cannot be applied
        return 0
    from averos_ci.stateops.rollback import rollback_state

    if to is None or reason is None:
        missing = "--to" if to is None else "--reason"
        raise InputError(
            f"{missing} is required to roll back the state branch",
            hint="`averos-ci state show` lists the applied commits; say why with --reason",
        )
    target = open_target(config_path=config, project=project)
    print(rollback_state(target, to=to, reason=reason, yes=yes).render_text(), end="")
    return 0
