from __future__ import annotations

import typer

app = typer.Typer(
    name="averos-ci",
    help="Plan on pull request, apply on merge: the Averos application lifecycle in CI.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)
