"""Regenerate and merge with the real Averos schematics (issue 21 "Proof" (a)): the library
example loses its Shelf entity — nothing under src/ mentions Shelf any more, the plan showed
the deletions, and the application still compiles.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from averos_ci.config import load_config
from averos_ci.execute import apply
from averos_ci.execute.adapters import adapter_options
from averos_ci.execute.adapters.angular.adapter import AngularSchematicsAdapter
from averos_ci.execute.regen import plan_patch
from averos_ci.plan.identity import execution_identity
from averos_ci.state import FileStateStore
from averos_ci.state.guard import plan_on_base

pytestmark = [pytest.mark.angular, pytest.mark.slow]

LIBRARY = Path(__file__).resolve().parents[2] / "plan" / "data" / "library.base.manifest.yaml"


def _without_shelf(text: str) -> str:
    text = re.sub(r"      - memberNature: composite\n(        .*\n)+", "", text)
    text = re.sub(r"  - name: Shelf\n(    .*\n|      .*\n)+", "", text)
    return "".join(line for line in text.splitlines(keepends=True) if "Shelf" not in line)


def test_removing_an_entity_removes_its_code_and_the_app_builds(
    angular_template: Path, angular_env: Path, tmp_path: Path
) -> None:
    project = tmp_path / "library"
    project.mkdir()
    shutil.copy(LIBRARY, project / "library.manifest.yaml")
    (project / "averos.config.json").write_text(
        json.dumps(
            {
                "workspaceRoot": "workspace",
                "manifestPath": "library.manifest.yaml",
                "statePath": ".averos/state.json",
                "checkpointPath": ".averos/checkpoints.json",
                "logsDir": ".averos/logs",
                "adapter": "angular-schematics",
                "adapterOptions": {"templateCache": True},
            }
        )
    )
    cfg = load_config(project / "averos.config.json")
    adapter = AngularSchematicsAdapter(adapter_options(cfg))
    assert adapter.regenerates
    first = apply(cfg, adapter=adapter)
    assert first.summary.success, first.summary.failures
    ws = project / "workspace"
    assert (ws / "src/app/model/shelf.ts").is_file()
    manifest = project / "library.manifest.yaml"
    manifest.write_text(_without_shelf(manifest.read_text()))
    base = plan_on_base(
        manifest_path=cfg.manifest_path,
        state=FileStateStore(cfg.state_path).load(),
        state_path=cfg.state_path,
        adapter=cfg.adapter,
        workspace_root=ws,
        execution=execution_identity(cfg),
    )
    assert {c.id for c in base.planned.plan.diff.to_remove} >= {"entity:Shelf"}
    planned = plan_patch(
        base.planned, config=cfg, adapter=adapter, execution=execution_identity(cfg)
    )
    deleted = {f.path for f in planned.patch.files if f.status.value == "deleted"}
    assert "src/app/model/shelf.ts" in deleted and not planned.patch.conflicts
    second = apply(cfg, adapter=adapter, expected_plan_hash=planned.planned.plan.plan_hash)
    assert second.summary.success
    mentions = [
        str(p.relative_to(ws))
        for p in (ws / "src").rglob("*")
        if p.is_file() and re.search(rb"shelf", p.read_bytes(), re.IGNORECASE)
    ]
    assert mentions == []
    proc = subprocess.run(
        ["npx", "ng", "build", "--configuration", "development"],
        cwd=ws,
        env={
            **os.environ,
            "NG_CLI_ANALYTICS": "false",
            "npm_config_cache": str(angular_env / "npm"),
        },
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
