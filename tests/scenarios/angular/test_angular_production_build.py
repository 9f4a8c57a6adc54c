"""A user's first ``ng build`` of a generated app succeeds: the default (production)
configuration, its budgets and its optimization as the adapter generated them.

Angular's defaults for a blank app (initial bundle error at 1 MB; fonts inlined from Google
at build time) fail on every Averos app (about 4.1 MB) and on any machine without internet.

The build runs in this worker's build slot (tests/scenarios/angular/slot.py): the same sources,
``node_modules`` and command in a fixed folder, where Angular's persistent cache (keyed by the
sources' contents and the build options) spares the compilation that did not change. The
budgets, the font step and the optimizer's output are those of a build without a cache.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from averos_ci.config import load_config
from averos_ci.execute import apply
from averos_ci.execute.adapters.angular._proc import run as run_command
from averos_ci.preview.build import output_dir
from tests.conftest import copy_example, unavailable
from tests.scenarios.angular.slot import build_in_slot

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
    outputs: list[str] = []

    def build(copy: Path) -> Path:
        done = run_command(
            ["npx", "ng", "build"],  # the default configuration: production
            cwd=copy,
            env={
                **os.environ,
                "NG_CLI_ANALYTICS": "false",
                "npm_config_cache": str(angular_env / "npm"),
            },
            timeout=1800,
        )  # a failed build raises CommandFailed with the end of its output
        outputs.append(done.stdout[-4000:] + done.stderr[-4000:])
        built = output_dir(copy)
        assert built is not None, f"the build wrote no index.html: {outputs[-1]}"
        return built

    dist = build_in_slot(ws, angular_env, build)
    assert "exceeded maximum budget" not in outputs[0], outputs[0]
    assert any(f.name.startswith("main.") and f.suffix == ".js" for f in dist.iterdir())
