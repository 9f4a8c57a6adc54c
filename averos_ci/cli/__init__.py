"""The command line: ``averos-ci`` and ``averos`` (same app).

Thin by design: every command maps its options to one library call and returns an exit code.
Errors become exit codes here and nowhere else. Heavy modules are imported inside the
commands so that ``averos-ci validate`` starts fast.
"""

from __future__ import annotations

import os
import sys

import click

from averos_ci.cli import github as _github  # noqa: F401  (registers commands)
from averos_ci.cli import plan as _plan  # noqa: F401
from averos_ci.cli import run as _run  # noqa: F401
from averos_ci.cli import validate as _validate  # noqa: F401
from averos_ci.cli._app import app
from averos_ci.errors import AverosCIError, ExitCode

__all__ = ["app", "main"]


def main(argv: list[str] | None = None) -> int:
    """Entry point of both console scripts; returns (and exits with) the exit code."""
    code = run_cli(argv)
    sys.exit(code)


def run_cli(argv: list[str] | None = None) -> int:
    try:
        result = app(args=argv, standalone_mode=False, prog_name=_prog_name())
    except click.exceptions.Exit as exc:
        return int(exc.exit_code)
    except click.exceptions.Abort:
        click.echo("interrupted", err=True)
        return int(ExitCode.INTERRUPTED)
    except click.ClickException as exc:
        exc.show()
        return int(ExitCode.INVALID)
    except AverosCIError as exc:
        click.echo(f"error: {exc}", err=True)
        return int(exc.exit_code)
    except KeyboardInterrupt:
        click.echo("interrupted", err=True)
        return int(ExitCode.INTERRUPTED)
    except Exception as exc:  # a bug: say so, without a traceback unless asked
        if os.environ.get("AVEROS_CI_DEBUG"):
            raise
        click.echo(
            f"internal error: {type(exc).__name__}: {exc}\n"
            "hint: set AVEROS_CI_DEBUG=1 for a traceback and report it",
            err=True,
        )
        return int(ExitCode.INTERNAL)
    return int(result) if isinstance(result, int) else 0


def _prog_name() -> str:
    name = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else "averos-ci"
    return name if name in {"averos", "averos-ci"} else "averos-ci"
