"""``averos-ci preview``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from averos_ci.cli._app import app


@app.command()
def preview(
    config: Annotated[
        Path | None, typer.Option(help="Config file (default: ./averos.config.json).")
    ] = None,
    port: Annotated[
        int, typer.Option(help="Port of the app's URL (0: any free port).", min=0, max=65535)
    ] = 4200,
    build: Annotated[
        bool,
        typer.Option(
            "--build/--no-build", help="--no-build: serve the existing build when there is one."
        ),
    ] = True,
    screenshot: Annotated[
        Path | None,
        typer.Option(
            metavar="DIR",
            help="Screenshot every entity page into DIR (with DIR/pages.json), then exit.",
        ),
    ] = None,
    open_browser: Annotated[
        bool, typer.Option("--open", help="Open the app in the default browser.")
    ] = False,
    chromium: Annotated[
        Path | None,
        typer.Option(
            metavar="PATH",
            help="Chromium for --screenshot (default: $AVEROS_CI_CHROMIUM or /usr/bin/chromium).",
        ),
    ] = None,
) -> int:
    """Build the generated app and serve it with a mock backend (json-server seeded from the
    manifest). Exit 0 ok, 1 build/server/page failed, 2 invalid input or a missing tool,
    130 stopped with Ctrl-C."""
    from averos_ci.preview import preview as run_preview

    run_preview(
        config=config,
        port=port,
        build=build,
        screenshot=screenshot,
        open_browser=open_browser,
        chromium=chromium,
    )
    return 0
