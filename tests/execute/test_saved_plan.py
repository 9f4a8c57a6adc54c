"""``averos-ci plan --out plan.json`` then ``run --plan plan.json``: exactly that plan, or
"saved plan is stale" (exit 1) with nothing written."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from averos_ci.cli import run_cli
from averos_ci.plan.model import PLAN_FORMAT_VERSION
from averos_ci.state import FileStateStore
from tests.conftest import copy_example

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "todoapp"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    work = tmp_path / "project"
    copy_example(work, mock=True)
    monkeypatch.chdir(work)
    return work


def tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def _edit_manifest(project: Path) -> None:
    path = project / "todoapp.manifest.yaml"
    path.write_text(path.read_text().replace("AboutPage", "InfoPage"))


def test_saved_plan_applies_like_run(project: Path, tmp_path: Path) -> None:
    twin = tmp_path / "twin"
    shutil.copytree(project, twin)
    assert run_cli(["plan", "--out", "plan.json"]) == 0
    saved = json.loads((project / "plan.json").read_text())
    assert saved["formatVersion"] == PLAN_FORMAT_VERSION and len(saved["nodes"]) == 33
    assert run_cli(["run", "--plan", "plan.json"]) == 0
    assert run_cli(["run", "--config", str(twin / "averos.config.json")]) == 0
    mine = FileStateStore(project / ".averos/state.json").load()
    theirs = FileStateStore(twin / ".averos/state.json").load()
    assert mine is not None and theirs is not None
    assert mine.manifest_hash == theirs.manifest_hash
    assert {k: v.args_hash for k, v in mine.node_states.items()} == {
        k: v.args_hash for k, v in theirs.node_states.items()
    }
    summary = json.loads((project / ".averos/logs/summary.json").read_text())
    assert summary["succeeded"] == 33 and summary["success"] is True


@pytest.mark.parametrize("change", ["manifest", "state"])
def test_stale_plan_is_refused_and_nothing_is_written(
    project: Path, change: str, capsys: pytest.CaptureFixture[str]
) -> None:
    if change == "state":  # someone applied in between
        assert run_cli(["plan", "--out", "plan.json"]) == 0
        _edit_manifest(project)
        assert run_cli(["run"]) == 0
        _edit_manifest(project)  # no-op: the manifest is the applied one
    else:
        assert run_cli(["plan", "--out", "plan.json"]) == 0
        _edit_manifest(project)
    capsys.readouterr()
    before = tree(project)
    assert run_cli(["run", "--plan", "plan.json"]) == 1
    err = capsys.readouterr().err
    assert "saved plan is stale" in err and "nothing was executed or written" in err
    assert "hint: plan again" in err
    assert tree(project) == before


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda d: d["nodes"].pop(), "was modified after it was written"),
        (lambda d: d.update(formatVersion=9), "/formatVersion: 9 is not a plan format"),
        (lambda d: d.update(nodes="x"), "/nodes"),
    ],
)
def test_edited_or_foreign_plan_is_exit_2(
    project: Path, edit: object, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_cli(["plan", "--out", "plan.json"]) == 0
    path = project / "plan.json"
    data = json.loads(path.read_text())
    edit(data)  # type: ignore[operator]
    path.write_text(json.dumps(data, indent=2))
    capsys.readouterr()
    assert run_cli(["run", "--plan", "plan.json"]) == 2
    err = capsys.readouterr().err
    assert message in err and "plan.json:" in err and "hint:" in err
    assert not (project / ".averos").exists()


def test_text_plan_is_not_a_saved_plan(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli(["plan", "--format", "text", "--out", "plan.txt"]) == 0
    assert run_cli(["run", "--plan", "plan.txt"]) == 2
    assert "averos-ci plan --out plan.json" in capsys.readouterr().err
    assert not (project / ".averos").exists()


def test_out_format_follows_the_file_name_unless_given(project: Path) -> None:
    assert run_cli(["plan", "--out", "plan.txt"]) == 0
    assert (project / "plan.txt").read_text().startswith("averos-ci plan for ToDoApp")
    assert run_cli(["plan", "--out", "PLAN.JSON"]) == 0
    assert json.loads((project / "PLAN.JSON").read_text())["formatVersion"] == PLAN_FORMAT_VERSION
    assert run_cli(["plan", "--format", "markdown", "--out", "plan.json"]) == 0
    assert (project / "plan.json").read_text().startswith("### averos-ci plan")
