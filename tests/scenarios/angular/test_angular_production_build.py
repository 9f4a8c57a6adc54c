"""A user's first ``ng build`` of a generated app succeeds: the default (production)
configuration, its budgets and its optimization as the adapter generated them.

Angular's defaults for a blank app (initial bundle error at 1 MB; fonts inlined from Google
at build time) fail on every Averos app (about 4.1 MB) and on any machine without internet.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from averos_ci.config import load_config
from averos_ci.execute import apply
from tests.conftest import copy_example, unavailable

pytestmark = [pytest.mark.angular, pytest.mark.slow]


def test_production_build_of_the_generated_example(angular_env: Path, tmp_path: Path) -> None:
    if shutil.which("npx") is None:
        unavailable("the production build test needs npx")
    project = tmp_path / "todo"
    copy_example(project)  # the example's own config: the real angular-schematics adapter
    assert json.loads((project / "averos.config.json").read_text())["adapter"] == (
        "angular-schematics"
    )
    outcome = apply(load_config(project / "averos.config.json"))
    assert outcome.summary.success, outcome.summary.failures
    ws = project / "workspace"
    proc = subprocess.run(
        ["npx", "ng", "build"],  # the default configuration: production
        cwd=ws,
        env={
            **os.environ,
            "NG_CLI_ANALYTICS": "false",
            "npm_config_cache": str(angular_env / "npm"),
        },
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
    )
    output = proc.stdout[-4000:] + proc.stderr[-4000:]
    assert proc.returncode == 0, output
    assert "exceeded maximum budget" not in output
    [dist] = [p for p in (ws / "dist").iterdir() if (p / "index.html").is_file()]
    assert any(f.name.startswith("main.") and f.suffix == ".js" for f in dist.iterdir())
