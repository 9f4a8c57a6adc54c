"""``averos-ci dashboard`` over a state branch made by real applies (conftest.py): the model
it reads, the pages it writes, the escaping of the branch's strings, its exit codes."""

from __future__ import annotations

import json
import subprocess
from datetime import timedelta
from html import escape
from pathlib import Path

import pytest

from averos_ci.cli import run_cli
from averos_ci.dashboard import ClaimStatus, build_dashboard
from averos_ci.dashboard.pages import project_file
from tests.dashboard.conftest import ATTACK, ATTACK_APPROVER, RUNNING, STUCK, StateWorld

pytestmark = pytest.mark.xdist_group("dashboard")


def _show(clone: Path, ref: str, path: str) -> dict[str, object]:
    out = subprocess.run(
        ["git", "show", f"{ref}:{path}"], cwd=clone, check=True, capture_output=True, text=True
    ).stdout
    data: dict[str, object] = json.loads(out)
    return data


def test_the_model_holds_what_the_applies_wrote(state_world: StateWorld, tmp_path: Path) -> None:
    site = build_dashboard(state_world.clone, out=tmp_path / "site")
    d = site.dashboard
    assert [p.name for p in d.projects] == sorted(["default", STUCK, RUNNING, ATTACK])
    default = next(p for p in d.projects if p.name == "default")
    state = _show(state_world.clone, "averos-state", "default/state.json")
    assert default.manifest_hash == state["manifestHash"]
    assert default.serial == state["serial"]
    # two applies, in order, each of its merge commit; the last one is the applied one
    applies = [r for r in default.runs if r.action == "apply"]
    assert [r.sha for r in applies] == list(state_world.merges)
    assert default.last_apply is not None and default.last_apply.sha == state_world.merges[1]
    assert all(r.duration_ms is not None and r.finished_at is not None for r in applies)
    assert len({r.plan_hash for r in applies}) == 2
    # every apply and the drift record are commits of this folder
    assert len(default.commits) >= 3
    assert default.drifted and {f.change for f in default.drift.files} == {"missing", "modified"}
    claims = {p.name: p.claim.status for p in d.projects if p.claim is not None}
    assert claims == {STUCK: ClaimStatus.STUCK, RUNNING: ClaimStatus.RUNNING}
    assert [p.name for p in d.drifted] == ["default"]
