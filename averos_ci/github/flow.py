"""``averos-ci github <command>``: the library entry point of the commands; which flow runs is
the table in :mod:`averos_ci.github.routes`."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import httpx

from averos_ci.errors import AverosCIError, InputError
from averos_ci.forge.context import open_context
from averos_ci.forge.events import load_event
from averos_ci.github.routes import COMMANDS, JOBS, RESOLVES_PLAN_STATUS, Options, route

__all__ = ["COMMANDS", "run_github"]


def run_github(
    command: str,
    *,
    config_path: str | Path | None = None,
    environ: Mapping[str, str] | None = None,
    transport: httpx.BaseTransport | None = None,
    apply_fn: Any = None,
    out: Path | None = None,
    patch_path: Path | None = None,
) -> Any:
    """Run one step of the GitHub flow for the current Actions event; returns its outcome.
    ``out`` is ``patch``'s result file, ``patch_path`` the one ``complete`` reads (default for
    both: ``$RUNNER_TEMP/averos-ci-patch/averos-patch.json``).

    Raises :class:`~averos_ci.errors.AverosCIError` subclasses (exit codes in the CLI).
    """
    if command not in COMMANDS:
        raise InputError(f"unknown command {command!r}", hint=f"use one of {', '.join(COMMANDS)}")
    options = Options(config_path, environ, transport, apply_fn, out, patch_path)
    if command in JOBS:
        return JOBS[command](options)
    try:
        ctx = open_context(config_path=config_path, environ=environ, transport=transport)
    except AverosCIError as exc:
        if command in RESOLVES_PLAN_STATUS:
            from averos_ci.github.plan_flow import fail_unconfigured_plan

            fail_unconfigured_plan(exc, environ=environ, transport=transport)
        raise
    try:
        event = load_event(ctx.env.event_name, ctx.env.event_path)
        taken = route(command, event)
        if taken is None:
            raise InputError(
                f"'github {command}' cannot handle the {ctx.env.event_name!r} event",
                hint="use 'averos-ci github auto' to dispatch on the event",
            )
        return taken.flow(ctx, event, options)
    finally:
        ctx.report.flush()
        ctx.close()
