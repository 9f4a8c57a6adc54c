"""``averos-ci doctor``."""

from __future__ import annotations

import os
from enum import StrEnum
from typing import Annotated

import typer

from averos_ci.cli._app import app


class DoctorFormat(StrEnum):
    TEXT = "text"
    JSON = "json"


@app.command()
def doctor(
    repo: Annotated[
        str | None, typer.Option(help="owner/name (default: $GITHUB_REPOSITORY, else origin).")
    ] = None,
    default_branch: Annotated[
        str | None, typer.Option(help="Default branch (default: origin's HEAD).")
    ] = None,
    api_url: Annotated[
        str | None, typer.Option(help="REST API root (default: $GITHUB_API_URL or GitHub's).")
    ] = None,
    output_format: Annotated[
        DoctorFormat, typer.Option("--format", help="text or json.")
    ] = DoctorFormat.TEXT,
    allow_unknown: Annotated[
        bool,
        typer.Option(
            "--allow-unknown",
            help="Exit 0 when nothing failed, even if some checks could not be read.",
        ),
    ] = False,
) -> int:
    """Check the repository's GitHub setup (settings, rules, environment, secret, token,
    workflows) with the token in GITHUB_TOKEN or GH_TOKEN; print each problem's fix.

    Exit 0 every check passed, 1 a check failed or could not be checked (see --allow-unknown),
    2 usage.
    """
    from pathlib import Path

    from averos_ci._token import current
    from averos_ci.onboard.doctor import doctor as run_doctor

    report = run_doctor(
        Path.cwd(),
        token=current() or os.environ.get("GITHUB_TOKEN") or os.environ.get("GH_TOKEN"),
        repository=repo,
        branch=default_branch,
        api_url=api_url,
    )
    text = report.to_json() if output_format is DoctorFormat.JSON else report.to_text()
    typer.echo(text, nl=False)
    return report.exit_code(allow_unknown=allow_unknown)
