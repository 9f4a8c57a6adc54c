"""Commands are imported when looked up: `validate` (the pre-commit path) imports none of the
other commands nor the libraries they need, and every command stays reachable."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from averos_ci.cli import run_cli
from averos_ci.cli._app import COMMAND_MODULES

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "averos" / "todoapp-manifest.json"
PROBE = """\
import json, sys
from averos_ci.cli import run_cli
code = run_cli(sys.argv[1:])
print(json.dumps({"code": code, "modules": sorted(sys.modules)}))
"""


def loaded_after(*argv: str) -> tuple[int, set[str]]:
    """Exit code and the modules a fresh process holds after running the CLI with ``argv``."""
    r = subprocess.run(
        [sys.executable, "-c", PROBE, *argv], capture_output=True, text=True, check=False
    )
    out = json.loads(r.stdout.strip().splitlines()[-1])
    return out["code"], set(out["modules"])


def test_validate_imports_no_other_command_and_no_heavy_library() -> None:
    code, modules = loaded_after("validate", str(GOLDEN))
    assert code == 0
    assert "averos_ci.cli.validate" in modules
    others = {f"averos_ci.cli.{m}" for m in COMMAND_MODULES.values()} - {"averos_ci.cli.validate"}
    assert not others & modules, others & modules
    heavy = ("httpx", "git", "rich", "averos_ci.github", "averos_ci.plan", "averos_ci.execute")
    for name in heavy:
        assert name not in modules, name


def test_a_command_imports_its_own_module_only() -> None:
    code, modules = loaded_after("drift", "--help")
    assert code == 0
    assert "averos_ci.cli.state" in modules  # drift lives with the state commands
    assert "averos_ci.cli.github" not in modules and "averos_ci.cli.validate" not in modules


def test_help_lists_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli(["--help"]) == 0
    listed = [
        line.split()[0]
        for line in capsys.readouterr().out.split("Commands:")[1].splitlines()
        if line.strip()
    ]
    assert listed == list(COMMAND_MODULES)


def test_every_command_is_found_in_its_module(capsys: pytest.CaptureFixture[str]) -> None:
    for name in COMMAND_MODULES:
        assert run_cli([name, "--help"]) == 0, name
        assert f" {name} " in capsys.readouterr().out, name
