"""``averos-ci plan --policy``: the policy section in text and markdown, exit 1 on violation,
located config errors, no CFG-01 warning for the ``policy`` key."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from averos_ci.cli import run_cli
from tests.plan.plan_samples import EXAMPLE_MANIFEST


def project(tmp_path: Path, policy: Any) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    shutil.copy(EXAMPLE_MANIFEST, root / "app.manifest.yaml")
    config = {"adapter": "mock", "manifestPath": "app.manifest.yaml", "policy": policy}
    (root / "averos.config.json").write_text(json.dumps(config, indent=2), encoding="utf-8")
    return root / "averos.config.json"


def test_violation_exits_1_and_is_rendered(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cfg = project(tmp_path, {"maxNodes": 3, "protectedElements": ["entity:ToDoTask"]})
    assert run_cli(["plan", "--config", str(cfg), "--policy"]) == 1
    out, err = capsys.readouterr()
    assert "Policy: FAILED, 1 violation(s)" in out and "x maxNodes:" in out
    assert "protectedElements" in out and "entity:ToDoTask" in out
    assert "error: the plan violates the policy (1 violation(s): maxNodes)" in err
    assert "CFG-01" not in err
    # without --policy the section is shown but the exit code is that of plan
    assert run_cli(["plan", "--config", str(cfg)]) == 0
    assert "Policy: FAILED" in capsys.readouterr().out


def test_passing_policy_exits_0(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = project(tmp_path, {"maxNodes": 100, "forbidRemovals": True})
    assert run_cli(["plan", "--config", str(cfg), "--policy"]) == 0
    assert "Policy: passed" in capsys.readouterr().out


def test_markdown_and_out_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = project(tmp_path, {"maxNodes": 3, "requiredApprovals": 2})
    out = tmp_path / "plan.md"
    args = ["plan", "--config", str(cfg), "--policy", "--format", "markdown", "--out", str(out)]
    assert run_cli(args) == 1
    text = out.read_text(encoding="utf-8")
    assert "**Policy: failed — 1 violation(s)**" in text
    assert "- `requiredApprovals`: 2 distinct approvers" in text


def test_json_plan_keeps_its_schema(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = project(tmp_path, {"maxNodes": 3})
    assert run_cli(["plan", "--config", str(cfg), "--policy", "--format", "json"]) == 1
    out, err = capsys.readouterr()
    assert "policy" not in json.loads(out)
    assert "policy: maxNodes:" in err


def test_detailed_exitcode_violation_is_1(tmp_path: Path) -> None:
    cfg = project(tmp_path, {"maxNodes": 3})
    assert run_cli(["plan", "--config", str(cfg), "--policy", "--detailed-exitcode"]) == 1


def test_bad_policy_is_located_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = project(tmp_path, {"maxNodes": 3, "forbidRemovalz": True})
    assert run_cli(["plan", "--config", str(cfg), "--policy"]) == 2
    err = capsys.readouterr().err
    assert f"{cfg}:6:5: /policy/forbidRemovalz: Extra inputs are not permitted" in err, err
    assert "hint: see docs/how-to/policy.md" in err


def test_policy_flag_without_section(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = project(tmp_path, None)
    data = json.loads(cfg.read_text())
    del data["policy"]
    cfg.write_text(json.dumps(data))
    assert run_cli(["plan", "--config", str(cfg), "--policy"]) == 0
    out, err = capsys.readouterr()
    assert "Policy: passed" in out and "no 'policy' section" in err
