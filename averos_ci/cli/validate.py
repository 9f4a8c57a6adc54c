"""``averos-ci validate``."""

from __future__ import annotations

import os
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from averos_ci.cli._app import app


class OutputFormat(StrEnum):
    TEXT = "text"
    JSON = "json"
    GITHUB = "github"


@app.command()
def validate(
    paths: Annotated[
        list[Path] | None,
        typer.Argument(
            help="Manifest files (JSON or YAML). Default: manifestPath of ./averos.config.json."
        ),
    ] = None,
    output_format: Annotated[
        OutputFormat | None,
        typer.Option(
            "--format", help="text (default), json, or github (default when GITHUB_ACTIONS=true)."
        ),
    ] = None,
    max_bytes: Annotated[
        int, typer.Option(help="Refuse files larger than this many bytes.", min=1)
    ] = 10 * 1024 * 1024,
    config: Annotated[
        Path | None,
        typer.Option(
            help="Config file, checked as plan checks it (adapter, adapterOptions, listeners, "
            "manifestPath); its manifestPath is validated when no PATH is given."
        ),
    ] = None,
) -> int:
    """Validate Averos manifests (and the config, when one is read). Exit 0 when valid
    (warnings allowed), 2 when invalid."""
    from averos_ci.cli import manifest_paths
    from averos_ci.manifest.validate import validate_paths

    if output_format is None:
        github = os.environ.get("GITHUB_ACTIONS") == "true"
        output_format = OutputFormat.GITHUB if github else OutputFormat.TEXT
    return validate_paths(
        manifest_paths(paths or [], config),
        output_format=output_format.value,
        max_bytes=max_bytes,
    )
