"""A user's first ``ng build`` of a generated app succeeds: the default (production)
configuration, its budgets and its optimization as the adapter generated them.

Angular's defaults for a blank app (initial bundle error at 1 MB; fonts inlined from Google
at build time) fail on every Averos app (about 4.1 MB) and on any machine without internet.

The build runs in the build slot "production" (tests/scenarios/angular/slot.py), whichever
worker runs it: the same sources, ``node_modules`` and command in a fixed folder, where
Angular's persistent cache (keyed by the build options; the sources are checked) spares the
compilation that did not change — the production configuration's cache, which a worker's slot
would hold only if that worker had run this test before. The budgets, the font step and the
optimizer's output are those of a build without a cache.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from averos_ci.config import load_config
from averos_ci.planning import apply
from tests.conftest import copy_example, unavailable
from tests.scenarios.angular.applied import ng_build

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
    output: list[str] = []
    # the default configuration: production (a failed build raises CommandFailed)
    dist = ng_build(
        ws, angular_env, ("ng", "build"), timeout=1800, output=output, slot="production"
    )
    assert "exceeded maximum budget" not in output[0], output[0]
    assert any(f.name.startswith("main.") and f.suffix == ".js" for f in dist.iterdir())
