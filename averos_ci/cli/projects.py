"""``averos-ci projects``."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from averos_ci.cli._app import app


class ProjectsFormat(StrEnum):
    TEXT = "text"
    JSON = "json"
    GITHUB_MATRIX = "github-matrix"


@app.command()
def projects(
    root: Annotated[
        Path | None, typer.Option(help="A directory of the repository (default: current).")
    ] = None,
    changed: Annotated[
        bool, typer.Option("--changed", help="Only projects changed from --base to --head.")
    ] = False,
    base: Annotated[
        str | None, typer.Option(help="Base revision (with --changed; its merge base is used).")
    ] = None,
    head: Annotated[str, typer.Option(help="Head revision (with --changed).")] = "HEAD",
    output_format: Annotated[
        ProjectsFormat,
        typer.Option("--format", help='text, json, or github-matrix ({"include": [...]}).'),
    ] = ProjectsFormat.TEXT,
    max_jobs: Annotated[
        int,
        typer.Option(
            help="Most matrix entries (1-256, GitHub's cap); above it an entry is a batch of "
            "projects (docs/how-to/monorepo.md)."
        ),
    ] = 256,
) -> int:
    """List the projects (averos.config.json files) of the repository, or the changed ones.

    Under GitHub Actions also writes the step outputs matrix, projects and count.
    """
    from averos_ci.projects.selection import projects_command

    return projects_command(
        root=root,
        changed=changed,
        base=base,
        head=head,
        output_format=output_format.value,
        max_jobs=max_jobs,
    )
