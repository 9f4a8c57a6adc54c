from __future__ import annotations

from typing import Annotated

import typer

from averos_ci import __version__

# ``-h`` everywhere: click hands help_option_names down to every sub-command's context.
CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"]}

app = typer.Typer(
    name="averos-ci",
    help="Plan on pull request, apply on merge: the Averos application lifecycle in CI.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings=CONTEXT_SETTINGS,
)


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"averos-ci {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            help="Print the version and exit.",
            is_eager=True,
            callback=_print_version,
        ),
    ] = False,
) -> None:
    """Plan on pull request, apply on merge: the Averos application lifecycle in CI.

    Exit codes (every command): 0 ok / no changes, 1 run failed or apply refused, 2 invalid
    input or usage, 3 internal error, 4 changes present (plan --detailed-exitcode),
    5 the plan has conflicts (plan --detailed-exitcode, run, github plan/apply),
    130 interrupted (progress persisted; resume with --resume).
    """
