"""``averos-ci mcp``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from averos_ci.cli._app import app


@app.command()
def mcp(
    root: Annotated[
        Path | None, typer.Option(help="Repository root (default: the current directory).")
    ] = None,
    config: Annotated[
        Path | None,
        typer.Option(help="Config file, relative to the root (default: ./averos.config.json)."),
    ] = None,
    git_name: Annotated[
        str | None, typer.Option(help="Author and committer name of the agent's commits.")
    ] = None,
    git_email: Annotated[
        str | None, typer.Option(help="Author and committer e-mail of the agent's commits.")
    ] = None,
) -> int:
    """Serve the Model Context Protocol over stdio: agents validate, plan, edit manifests and
    propose pull requests. No tool approves or applies."""
    from averos_ci.mcp import serve

    return serve(root=root, config=config, git_name=git_name, git_email=git_email)
