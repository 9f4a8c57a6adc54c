"""A new adapter is one folder and one entry point: ``third_party/third_adapter/`` is
registered only by ``third_party/third_adapter-0.1.dist-info/entry_points.txt``, found by
``importlib.metadata`` when that folder is on the path of a fresh process. averos-ci, which
spells no adapter name outside ``execute/adapters/`` (``tests/test_adapter_names.py``), plans
with it, runs it through the ``averos`` script, and says what its hooks say: the options an
approval covers, the settings it will not apply, its notice, its console line and its
summary."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from averos_ci.execute.adapters import available_adapters
from tests.conftest import copy_example

REPO_ROOT = Path(__file__).resolve().parents[3]
SITE = Path(__file__).resolve().parent / "third_party"
AVEROS = Path(sys.executable).with_name("averos")  # the Averos-compatible console script
CONFIG = {
    "workspaceRoot": "workspace",
    "manifestPath": "todoapp.manifest.yaml",
    "adapter": "third",
    "adapterOptions": {"pace": 1, "tone": "plain"},
}
UNAPPLIED = "memberTag: the third adapter keeps no tags"
NOTICE = "third adapter: notes only, no application"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    project = copy_example(tmp_path / "project")
    (project / "averos.config.json").write_text(json.dumps(CONFIG), encoding="utf-8")
    return project


def averos(project: Path, *args: str, site: bool = True) -> subprocess.CompletedProcess[str]:
    path = [str(SITE)] if site else []
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([*path, str(REPO_ROOT)])}
    return subprocess.run(
        [str(AVEROS), *args, "--config", "averos.config.json"],
        cwd=project, capture_output=True, text=True, env=env, timeout=120,
    )  # fmt: skip


def test_the_third_adapter_is_not_known_to_this_process() -> None:
    """Nothing in the package or this process registers it: only the entry point does."""
    assert "third" not in available_adapters()


def test_it_plans_through_its_hooks(project: Path) -> None:
    r = averos(project, "plan", "--format", "json")
    assert r.returncode == 0, r.stderr
    plan = json.loads(r.stdout)
    # its identity_options: ``pace`` changes no result, ``tone`` does
    assert plan["execution"]["adapter"] == "third"
    assert plan["execution"]["adapterOptions"] == {"tone": "plain"}
    # its not_applied: one per tagged member of the example (2 ID, 2 BusinessID)
    found = {(n["nodeId"], f"{n['setting']}: {n['reason']}") for n in plan["notApplied"]}
    assert found == {
        (f"simple-field:{member}", UNAPPLIED)
        for member in ("ToDoArea:areaId", "ToDoArea:title", "ToDoTask:taskId", "ToDoTask:name")
    }
    paced = json.loads((project / "averos.config.json").read_text(encoding="utf-8"))
    paced["adapterOptions"]["pace"] = 9
    (project / "averos.config.json").write_text(json.dumps(paced), encoding="utf-8")
    again = averos(project, "plan", "--format", "json")
    assert json.loads(again.stdout)["planHash"] == plan["planHash"]


def test_averos_run_shows_its_labels_in_the_console_and_the_summary(project: Path) -> None:
    r = averos(project, "run", "--summary-json", "summary.json", "--summary-md", "summary.md")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert NOTICE in lines  # its notice, before the run
    assert lines[-1] == "third: notes written under workspace/third/"  # its next_step
    assert f"NOT APPLIED simple-field:ToDoTask:taskId: {UNAPPLIED}" in lines
    summary = json.loads((project / "summary.json").read_text(encoding="utf-8"))
    assert summary["success"] and summary["total"] == summary["succeeded"] > 0
    assert summary["adapter"] == "third"
    assert summary["generated"] is False  # its generates
    heading, _, rest = (project / "summary.md").read_text(encoding="utf-8").partition("\n")
    assert heading.startswith("#") and rest.startswith(f"\n> {NOTICE}\n"), rest  # under it
    notes = sorted(p.name for p in (project / "workspace" / "third").iterdir())
    assert len(notes) == summary["total"] and "entity_ToDoTask.txt" in notes


def test_without_its_entry_point_the_name_is_unknown_and_a_near_one_is_suggested(
    project: Path,
) -> None:
    r = averos(project, "run", site=False)
    assert r.returncode == 2
    assert "unknown adapter 'third'" in r.stderr and "Traceback" not in r.stderr
    typo = averos(project, "run", "--adapter", "thrid")
    assert typo.returncode == 2
    assert "unknown adapter 'thrid'" in typo.stderr and "did you mean 'third'?" in typo.stderr
