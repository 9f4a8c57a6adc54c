"""The command line: ``averos-ci`` and ``averos`` (same app).

Thin by design: every command maps its options to one library call and returns an exit code.
Errors become exit codes here and nowhere else. Each command's module is imported only when
that command is looked up (``_app.COMMAND_MODULES``) and heavy modules inside the commands, so
that ``averos-ci validate`` starts fast.

A plain ``averos-ci validate [PATH...] [--format F] [--max-bytes N] [--config FILE]`` (what the
pre-commit hook runs) does not even build the click tree: :func:`plain_validate` reads those
options itself and hands anything else (``--help``, an unknown option, a bad value...) to
click, which stays the interface (and the source of the command reference). Typer, click and
pydantic then cost more than the validation itself (issue 25).
"""

from __future__ import annotations

import os
import re
import sys
from typing import TYPE_CHECKING, Any

from averos_ci._actions import neutralise, stop_commands
from averos_ci.errors import AverosCIError, ExitCode

if TYPE_CHECKING:
    from pathlib import Path

    from averos_ci.cli._app import app

__all__ = ["app", "main"]


def __getattr__(name: str) -> Any:
    if name == "app":  # the typer app: imported when asked for, not by ``main``
        from averos_ci.cli._app import app

        return app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def main(argv: list[str] | None = None) -> int:
    """Entry point of both console scripts; returns (and exits with) the exit code."""
    if argv is None:  # the process itself: no token may stay in its environment
        from averos_ci._token import isolate

        isolate(sys.argv[1:])
    stop_commands()  # under Actions: no printed text is a workflow command unless framed
    from averos_ci._interrupt import sigterm_interrupts

    sigterm_interrupts()  # SIGTERM cleans up as Ctrl-C does (exit 130)
    options = plain_validate(sys.argv[1:] if argv is None else argv)
    code = run_cli(argv) if options is None else _validate(options)
    sys.exit(code)


def run_cli(argv: list[str] | None = None) -> int:
    import typer

    from averos_ci.cli._app import app

    try:
        result = app(args=argv, standalone_mode=False, prog_name=_prog_name())
    except typer.Exit as exc:
        return int(exc.exit_code)
    except typer.Abort:
        return _failed(KeyboardInterrupt())
    except Exception as exc:
        return _failed(exc)
    except KeyboardInterrupt as exc:
        return _failed(exc)
    return int(result) if isinstance(result, int) else 0


def _failed(exc: BaseException) -> int:
    """The exit code of a command that raised ``exc``, its message on stderr."""
    import typer

    if isinstance(exc, KeyboardInterrupt):
        typer.echo("interrupted", err=True)
        return int(ExitCode.INTERRUPTED)
    if isinstance(exc, AverosCIError):
        text = str(exc)  # findings already say "<file>:<line>:<col>: error <CODE> ..."
        typer.echo(neutralise(text if _SAYS_ERROR.match(text) else f"error: {text}"), err=True)
        return int(exc.exit_code)
    if _is_usage_error(exc):
        exc.show()  # type: ignore[attr-defined]
        return int(ExitCode.INVALID)
    if os.environ.get("AVEROS_CI_DEBUG"):
        raise exc
    typer.echo(
        neutralise(f"internal error: {type(exc).__name__}: {exc}\n")
        + "hint: set AVEROS_CI_DEBUG=1 for a traceback and report it",
        err=True,
    )
    return int(ExitCode.INTERNAL)


_SAYS_ERROR = re.compile(r"^\S.*?:\d+:\d+: error [A-Z]+-\d+ ")

# ``validate``'s options as averos_ci/cli/validate.py declares them (a test keeps them equal).
VALIDATE_OPTIONS = ("--format", "--max-bytes", "--config")
VALIDATE_FORMATS = ("text", "json", "github")


def plain_validate(args: list[str]) -> dict[str, Any] | None:
    """``validate``'s keyword arguments when ``args`` is a plain call of it; ``None`` for
    anything else, which click parses (and reports) as it always does."""
    if not args or args[0] != "validate":
        return None
    paths: list[str] = []
    given: dict[str, str] = {}
    rest = iter(args[1:])
    for arg in rest:
        if not arg.startswith("-"):
            paths.append(arg)
            continue
        name, eq, value = arg.partition("=")
        if name not in VALIDATE_OPTIONS or name in given:
            return None  # --help, --, an unknown or repeated option: click's
        if not eq:
            value = next(rest, "")
        if not value or value.startswith("-"):
            return None
        given[name] = value
    if "" in paths:
        return None
    output_format = given.get("--format")
    if output_format is not None and output_format not in VALIDATE_FORMATS:
        return None
    max_bytes = given.get("--max-bytes", "10485760")
    if not (max_bytes.isascii() and max_bytes.isdigit()) or int(max_bytes) < 1:
        return None
    return {
        "paths": paths,
        "config": given.get("--config"),
        "output_format": output_format,
        "max_bytes": int(max_bytes),
    }


def manifest_paths(paths: list[Path], config: Path | None) -> list[Path]:
    """The manifests ``validate`` checks: those named, else the config's ``manifestPath``. A
    config that is read (``--config``, ``./averos.config.json`` when no file is named, or a
    named ``averos*.config.json``: the pre-commit hook's staged configs) is checked as
    ``plan`` checks it (averos_ci.config_check), so the hook refuses what plan does."""
    manifests = [p for p in paths if not is_config_name(p)]
    if config is None and len(manifests) == len(paths) > 0:
        return manifests  # manifests only: no config is read (nor pydantic imported)
    from averos_ci.config_check import load_checked_config

    for named in (p for p in paths if is_config_name(p)):
        checked = load_checked_config(named).manifest_path  # a config's manifest with it
        if checked.resolve() not in {m.resolve() for m in manifests}:
            manifests.append(checked)
    if paths and config is None:
        return manifests
    cfg = load_checked_config(config)
    return manifests or [cfg.manifest_path]


def is_config_name(path: Path) -> bool:
    """``averos.config.json``, ``averos.mock.config.json``: a config, not a manifest."""
    return path.name.startswith("averos") and path.name.endswith(".config.json")


def _validate(options: dict[str, Any]) -> int:
    """``averos-ci validate`` without click: what averos_ci/cli/validate.py does."""
    from pathlib import Path

    try:
        from averos_ci.manifest.validate import validate_paths

        output_format = options["output_format"]
        if output_format is None:
            github = os.environ.get("GITHUB_ACTIONS") == "true"
            output_format = "github" if github else "text"
        config: Path | None = Path(options["config"]) if options["config"] else None
        return validate_paths(
            manifest_paths([Path(p) for p in options["paths"]], config),
            output_format=output_format,
            max_bytes=options["max_bytes"],
        )
    except (Exception, KeyboardInterrupt) as exc:
        return _failed(exc)


def _is_usage_error(exc: BaseException) -> bool:
    """Click's ClickException, whichever copy of click typer uses (typer >= 0.26 vendors it)."""
    return any(cls.__name__ == "ClickException" for cls in type(exc).__mro__) and hasattr(
        exc, "show"
    )


def _prog_name() -> str:
    name = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else "averos-ci"
    return name if name in {"averos", "averos-ci"} else "averos-ci"
