"""``averos-ci init``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from averos_ci.cli._app import app


@app.command()
def init(
    default_branch: Annotated[
        str | None,
        typer.Option(
            help="Branch pull requests merge into (default: origin's HEAD, else the "
            "current branch, else main)."
        ),
    ] = None,
    action_repo: Annotated[
        str | None,
        typer.Option(
            help="GitHub 'owner/name' of averos-ci (default: where pip installed it from)."
        ),
    ] = None,
    local: Annotated[
        bool,
        typer.Option(
            "--local",
            help="A project on this machine: config, manifest, .gitignore and the pre-commit "
            "hook, no workflows (the default when origin is not on GitHub and no "
            "--action-repo is given).",
        ),
    ] = False,
    adapter: Annotated[
        str | None,
        typer.Option(help="Adapter of a new averos.config.json (default: the Angular adapter)."),
    ] = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Show the files (content or diff); write nothing.")
    ] = False,
    force: Annotated[
        bool, typer.Option("--force", help="Replace files that exist and differ.")
    ] = False,
) -> int:
    """Write a working setup into the current repository: the config (unless projects exist),
    the .gitignore lines of what runs write, the pre-commit hook and, for GitHub, the
    workflows and the local action they run (.github/actions/averos-ci, the one line naming
    averos-ci's repository); print what to set in GitHub's settings. Without a GitHub remote
    (or with --local) it sets up a local project: no workflows.

    Exit 0 done (or nothing to change), 1 a file exists and differs (nothing written; see
    --force), 2 usage.
    """
    from averos_ci.onboard import init_repository, render_init

    result = init_repository(
        Path.cwd(),
        branch=default_branch,
        action_repo=action_repo,
        adapter=adapter,
        local=True if local else None,
        dry_run=dry_run,
        force=force,
    )
    typer.echo(render_init(result), nl=False)
    return 1 if result.conflicts else 0
