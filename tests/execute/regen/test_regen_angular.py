"""Regenerate and merge with the real Averos schematics (issue 21 "Proof" (a)): the library
example loses its Shelf entity — nothing under src/ mentions Shelf any more, the plan showed
the deletions, and the application still compiles.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from averos_ci.config import load_config
from averos_ci.execute.adapters import adapter_options
from averos_ci.execute.adapters.angular.adapter import AngularSchematicsAdapter
from averos_ci.planning import FileState, apply, plan_project
from tests.scenarios.angular.applied import (
    LIBRARY_WITH_SHELF,
    ApplyProject,
    ng_build,
    without_shelf,
)

pytestmark = [pytest.mark.angular, pytest.mark.slow]


def test_removing_an_entity_removes_its_code_and_the_app_builds(
    applied_project: ApplyProject, angular_env: Path, tmp_path: Path
) -> None:
    project = applied_project(LIBRARY_WITH_SHELF, tmp_path / "library")
    cfg = load_config(project / "averos.config.json")
    adapter = AngularSchematicsAdapter(adapter_options(cfg))
    assert adapter.regenerates
    ws = project / "workspace"
    assert (ws / "src/app/model/shelf.ts").is_file()
    manifest = project / "library.manifest.yaml"
    manifest.write_text(without_shelf(manifest.read_text()))
    assert cfg.workspace_root == ws
    # the plan as `averos-ci plan` computes it: through the planning service
    planned = plan_project(cfg, FileState(cfg.state_path), code_patch="always", check=True)
    assert {c.id for c in planned.without_patch.plan.diff.to_remove} >= {"entity:Shelf"}
    assert planned.patch is not None
    deleted = {f.path for f in planned.patch.files if f.status.value == "deleted"}
    assert "src/app/model/shelf.ts" in deleted and not planned.patch.conflicts
    second = apply(cfg, adapter=adapter, expected_plan_hash=planned.plan.plan_hash)
    assert second.summary.success
    mentions = [
        str(p.relative_to(ws))
        for p in (ws / "src").rglob("*")
        if p.is_file() and re.search(rb"shelf", p.read_bytes(), re.IGNORECASE)
    ]
    assert mentions == []
    ng_build(ws, angular_env)
