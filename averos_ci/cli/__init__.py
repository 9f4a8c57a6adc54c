"""The command line: ``averos-ci`` and ``averos`` (same app).

Thin by design: every command maps its options to one library call and returns an exit code.
Errors become exit codes here and nowhere else. Each command's module is imported only when
that command is looked up (``_app.COMMAND_MODULES``) and heavy modules inside the commands, so
that ``averos-ci validate`` starts fast.
"""

from __future__ import annotations

import os
import re
import sys

import typer

from averos_ci._actions import neutralise, stop_commands
from averos_ci.cli._app import app
from averos_ci.errors import AverosCIError, ExitCode

__all__ = ["app", "main"]


def main(argv: list[str] | None = None) -> int:
    """Entry point of both console scripts; returns (and exits with) the exit code."""
    if argv is None:  # the process itself: no token may stay in its environment
        from averos_ci._token import isolate

        isolate(sys.argv[1:])
    stop_commands()  # under Actions: no printed text is a workflow command unless framed
    code = run_cli(argv)
    sys.exit(code)


def run_cli(argv: list[str] | None = None) -> int:
    try:
        result = app(args=argv, standalone_mode=False, prog_name=_prog_name())
    except typer.Exit as exc:
        return int(exc.exit_code)
    except (typer.Abort, KeyboardInterrupt):
        typer.echo("interrupted", err=True)
        return int(ExitCode.INTERRUPTED)
    except AverosCIError as exc:
        text = str(exc)  # findings already say "<file>:<line>:<col>: error <CODE> ..."
        typer.echo(neutralise(text if _SAYS_ERROR.match(text) else f"error: {text}"), err=True)
        return int(exc.exit_code)
    except Exception as exc:
        if _is_usage_error(exc):
            exc.show()  # type: ignore[attr-defined]
            return int(ExitCode.INVALID)
        if os.environ.get("AVEROS_CI_DEBUG"):
            raise
        typer.echo(
            neutralise(f"internal error: {type(exc).__name__}: {exc}\n")
            + "hint: set AVEROS_CI_DEBUG=1 for a traceback and report it",
            err=True,
        )
        return int(ExitCode.INTERNAL)
    return int(result) if isinstance(result, int) else 0


_SAYS_ERROR = re.compile(r"^\S.*?:\d+:\d+: error [A-Z]+-\d+ ")


def _is_usage_error(exc: Exception) -> bool:
    """Click's ClickException, whichever copy of click typer uses (typer >= 0.26 vendors it)."""
    return any(cls.__name__ == "ClickException" for cls in type(exc).__mro__) and hasattr(
        exc, "show"
    )


def _prog_name() -> str:
    name = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else "averos-ci"
    return name if name in {"averos", "averos-ci"} else "averos-ci"
