"""``averos-ci conflict-markers``: unresolved git conflict markers left in files (the
``averos-conflict-markers`` pre-commit hook)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from averos_ci.cli._app import app
from averos_ci.errors import ExitCode


@app.command("conflict-markers")
def conflict_markers(
    paths: Annotated[
        list[Path] | None,
        typer.Argument(help="Files to check. Default: every file of the config's workspaceRoot."),
    ] = None,
    config: Annotated[
        Path | None,
        typer.Option(help="Config file (default: ./averos.config.json), read without PATHS."),
    ] = None,
) -> int:
    """Find unresolved conflict markers (<<<<<<< ======= >>>>>>> regions, as `run
    --merge-conflicts=markers` writes them). Exit 0 none, 5 found (each as file:line)."""
    from averos_ci.execute.regen.markers import RESOLVE_HINT, check_markers

    found = check_markers(paths or [], config=config)
    for finding in found:
        print(f"{finding}: unresolved conflict markers")
    if found:
        print(f"hint: {RESOLVE_HINT}")
    return int(ExitCode.CONFLICTS if found else ExitCode.OK)
