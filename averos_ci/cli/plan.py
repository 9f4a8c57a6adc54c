"""``averos-ci plan``."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from averos_ci.cli._app import app


class PlanFormat(StrEnum):
    TEXT = "text"
    MARKDOWN = "markdown"
    JSON = "json"


@app.command()
def plan(
    config: Annotated[
        Path | None, typer.Option(help="Config file (default: ./averos.config.json).")
    ] = None,
    manifest: Annotated[
        Path | None, typer.Option(help="Manifest to plan (overrides manifestPath).")
    ] = None,
    state: Annotated[
        Path | None, typer.Option(help="Applied-state file (overrides statePath).")
    ] = None,
    output_format: Annotated[
        PlanFormat | None,
        typer.Option(
            "--format",
            help="text, markdown (PR comment / job summary) or json "
            "(default: json for --out FILE.json, else text).",
        ),
    ] = None,
    out: Annotated[Path | None, typer.Option(help="Write the plan to FILE (atomically).")] = None,
    detailed_exitcode: Annotated[
        bool,
        typer.Option(
            "--detailed-exitcode",
            help="Exit 0 no changes, 4 changes present, 5 conflicts (errors: 2, 3).",
        ),
    ] = False,
    max_bytes: Annotated[
        int | None,
        typer.Option(help="Refuse manifests larger than this many bytes (default 10 MiB).", min=1),
    ] = None,
    policy: Annotated[
        bool,
        typer.Option("--policy", help="Check the config's 'policy': exit 1 on a violation."),
    ] = False,
) -> int:
    """Show what `run` would do (dry run): the semantic diff and the execution plan."""
    from averos_ci.plan.command import plan_command

    return plan_command(
        config=config,
        manifest=manifest,
        state=state,
        output_format=output_format.value if output_format else None,
        out=out,
        detailed_exitcode=detailed_exitcode,
        max_bytes=max_bytes,
        policy=policy,
    )
