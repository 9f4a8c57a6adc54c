"""``averos-ci dashboard``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from averos_ci.cli._app import app


@app.command()
def dashboard(
    out: Annotated[Path, typer.Option("--out", help="Folder to write the site into.")] = Path(
        "_site"
    ),
    repo: Annotated[
        Path, typer.Option(help="A clone that holds the state branch (default: current).")
    ] = Path("."),
    branch: Annotated[str, typer.Option(help="The state branch's name.")] = "averos-state",
    ref: Annotated[
        str | None,
        typer.Option(
            help="The commit to read (default: the branch, local or as fetched from --remote)."
        ),
    ] = None,
    remote: Annotated[str, typer.Option(help="The remote the branch was fetched from.")] = (
        "origin"
    ),
    stuck_after: Annotated[
        int,
        typer.Option(help="Minutes without progress after which a claim counts as stuck.", min=1),
    ] = 60,
) -> int:
    """Build a static site of the state branch: projects, claims, drift, failures, history.

    Reads the branch's git objects only (no token, no API): fetch it first
    (`git fetch origin averos-state:averos-state`). Exit 0 written, 2 no state branch or a
    bad option.
    """
    from datetime import timedelta

    from averos_ci.dashboard import build_dashboard

    site = build_dashboard(
        repo,
        out=out,
        branch=branch,
        ref=ref,
        remote=remote,
        stuck_after=timedelta(minutes=stuck_after),
    )
    print(site.message)
    return 0
