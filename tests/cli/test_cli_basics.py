"""``--version`` and ``-h`` (an alias of ``--help``) on every command, found by walking the app
(commands other helpers add are covered too)."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest
import typer

from averos_ci import __version__
from averos_ci.cli import app, run_cli


def command_paths() -> list[list[str]]:
    root = typer.main.get_command(app)
    paths: list[list[str]] = [[]]

    def walk(cmd: Any, prefix: list[str]) -> None:
        # duck-typed: typer >= 0.26 vendors its own copy of click's Group
        for name, sub in getattr(cmd, "commands", {}).items():
            paths.append([*prefix, name])
            walk(sub, [*prefix, name])

    walk(root, [])
    return paths


def test_version_prints_the_package_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli(["--version"]) == 0
    assert capsys.readouterr().out == f"averos-ci {__version__}\n"


def test_version_from_the_console_script_module() -> None:
    r = subprocess.run(
        [sys.executable, "-m", "averos_ci", "--version"], capture_output=True, text=True
    )
    assert r.returncode == 0 and r.stdout.strip() == f"averos-ci {__version__}", r.stderr


@pytest.mark.parametrize("path", command_paths(), ids=lambda p: " ".join(p) or "averos-ci")
def test_dash_h_is_help_on_every_command(
    path: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_cli([*path, "--help"]) == 0
    long = capsys.readouterr().out
    assert run_cli([*path, "-h"]) == 0
    short = capsys.readouterr().out
    assert short == long and short.startswith("Usage: ")
    assert "-h, --help" in short


def test_the_walk_finds_the_known_commands() -> None:
    found = {" ".join(p) for p in command_paths()}
    assert {"validate", "plan", "run", "github", "github plan", "github apply"} <= found
