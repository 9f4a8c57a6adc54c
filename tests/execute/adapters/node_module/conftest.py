"""Node-module fixtures: a project folder holding the example adapter and the ToDo manifest.

Without Node the tests skip, except under CI, where they fail (tests.conftest.unavailable).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import unavailable

REPO = Path(__file__).resolve().parents[4]
EXAMPLE_DIR = REPO / "examples" / "node-adapter"
MANIFEST = REPO / "examples" / "todoapp" / "todoapp.manifest.yaml"
CLI = [sys.executable, "-m", "averos_ci"]


def require(tool: str, path: str | None) -> str:
    if path and Path(path).exists():
        return path
    unavailable(f"{tool} is not installed (.ci/run installs it)")


@pytest.fixture
def node_bin() -> str:
    return require("node", shutil.which("node"))


@pytest.fixture
def project(tmp_path: Path, node_bin: str) -> Callable[..., Path]:
    """``project(module=..., **config)``: a folder with averos.config.json using node-module."""

    def make(module: str = "my-adapter.mjs", **config: Any) -> Path:
        root = tmp_path / "project"
        root.mkdir(exist_ok=True)
        for name in ("my-adapter.mjs", "my-adapter.ts", "tsconfig.json"):
            shutil.copy(EXAMPLE_DIR / name, root / name)
        shutil.copy(MANIFEST, root / "todoapp.manifest.yaml")
        options = config.pop("adapterOptions", {})
        document = {
            "manifestPath": "todoapp.manifest.yaml",
            "workspaceRoot": "app",
            "logsDir": "logs",
            "statePath": ".averos/state.json",
            "checkpointPath": ".averos/checkpoints.json",
            "mode": "resilient",
            "adapter": "node-module",
            "adapterOptions": {"module": f"./{module}", **options},
            **config,
        }
        (root / "averos.config.json").write_text(json.dumps(document, indent=2))
        return root

    return make


def run_cli(
    project: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*CLI, "run", "--config=averos.config.json", *args],
        cwd=project,
        env={**os.environ, "PYTHONPATH": str(REPO), **(env or {})},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
