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


@app.callback()
def _root() -> None:
    """Plan on pull request, apply on merge: the Averos application lifecycle in CI.

    Exit codes: 0 ok, 1 run failed, 2 invalid input or usage, 3 internal error,
    130 interrupted (progress persisted; resume with --resume).
    """
