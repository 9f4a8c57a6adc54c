"""The planning service: one way to plan a project, whatever the state's source, and an apply
that executes the planned value it is given (re-checked against the expected planHash)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

import averos_ci.planning as planning
from averos_ci.cli.plan import plan_command
from averos_ci.config import RunConfig, load_config
from averos_ci.errors import InputError
from averos_ci.planning import FileState, PlanMismatch, RefState, apply, plan_project
from tests.conftest import copy_example


@pytest.fixture
def cfg(tmp_path: Path) -> RunConfig:
    return load_config(copy_example(tmp_path / "p", mock=True) / "averos.config.json")


def _git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t.invalid", *args],
        cwd=root,
        check=True,
        capture_output=True,
    )


def test_the_public_api_is_listed_and_importable() -> None:
    assert planning.__all__ == sorted(planning.__all__)
    for name in planning.__all__:
        assert getattr(planning, name) is not None


def test_the_cli_plan_is_the_service_plan(cfg: RunConfig, tmp_path: Path) -> None:
    out = tmp_path / "plan.json"
    assert plan_command(config=cfg.config_path, out=out) == 0
    planned = plan_project(cfg, FileState(cfg.state_path), code_patch="always", check=True)
    assert json.loads(out.read_text())["planHash"] == planned.plan.plan_hash
    assert planned.patch is None and planned.without_patch is planned.planned  # mock: no code


def test_a_ref_source_plans_against_the_manifest_at_that_ref(cfg: RunConfig) -> None:
    root = cfg.base_dir
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", cfg.manifest_path.name)
    _git(root, "commit", "-q", "-m", "manifest")
    rel = cfg.manifest_path.name
    same = plan_project(cfg, RefState(root, rel, "main", 10_000_000))
    assert not same.plan.has_changes and same.drift is None
    text = cfg.manifest_path.read_text()
    flag = "enableExternalEntityMapping: true"
    cfg.manifest_path.write_text(text.replace(flag, "enableExternalEntityMapping: false", 1))
    changed = plan_project(cfg, RefState(root, rel, "main", 10_000_000))
    assert [c.id.split(":")[0] for c in changed.plan.diff.to_update] == ["application"]
    fresh = plan_project(cfg, FileState(cfg.state_path))  # nothing applied: all is new
    assert changed.plan.plan_hash != fresh.plan.plan_hash
    with pytest.raises(InputError, match="not found"):
        plan_project(cfg, RefState(root, rel, "no-such-ref", 10_000_000))


def test_the_apply_executes_the_planned_value_it_is_given(cfg: RunConfig) -> None:
    planned = plan_project(cfg, FileState(cfg.state_path), code_patch="off", fatal=True)
    with pytest.raises(PlanMismatch):
        apply(cfg, planned=planned, expected_plan_hash="0" * 64)
    assert not cfg.state_path.exists()  # refused before anything ran
    done = apply(cfg, planned=planned, expected_plan_hash=planned.plan.plan_hash)
    assert done.summary.success and done.state is not None
    assert done.state.manifest_hash == planned.plan.manifest_hash
    again = plan_project(cfg, FileState(cfg.state_path), code_patch="off", fatal=True)
    assert not again.plan.has_changes  # the state moved: planned again, nothing is left
