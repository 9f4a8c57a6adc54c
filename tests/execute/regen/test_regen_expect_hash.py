"""``run --expect-plan-hash`` with a regenerating adapter executes exactly the approved plan,
its code change included: the semantic planHash alone (the plan without its code change) is
refused, and so is a full planHash whose code change moved since."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from averos_ci.config import load_config
from averos_ci.planning import FileState, plan_project
from tests.execute.regen.regen_project import Project, library

MODEL = "src/app/model/book.ts"


@pytest.fixture
def project(tmp_path: Path) -> Project:
    p = Project(tmp_path / "p", library())
    assert p.cli("run") == 0
    p.write(library(title_type="number"))
    return p


def planned(project: Project, tmp_path: Path) -> dict[str, str]:
    """The full planHash (``plan --out``) and the semantic one (the plan on the state's base
    without its code change, as the CI plan job posts it first)."""
    saved = tmp_path / "plan.json"
    assert project.cli("plan", "--out", str(saved)) == 0
    cfg = load_config(project.config)
    base = plan_project(cfg, FileState(cfg.state_path), code_patch="off")
    return {
        "full": json.loads(saved.read_text())["planHash"],
        "semantic": base.planned.plan.plan_hash,
    }


def test_the_semantic_hash_alone_is_refused(
    project: Project, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hashes = planned(project, tmp_path)
    assert hashes["semantic"] != hashes["full"]
    capsys.readouterr()
    assert project.cli("run", "--expect-plan-hash", hashes["semantic"]) == 2
    err = capsys.readouterr().err
    assert "is the plan without its code change" in err and hashes["full"][:12] in err
    assert "title?: string;" in project.file(MODEL).read_text()  # nothing written


def test_the_full_hash_applies_exactly_that_code_change(
    project: Project, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hashes = planned(project, tmp_path)
    model = project.file(MODEL)
    model.write_text(model.read_text() + "// an edit after the approval\n")
    capsys.readouterr()
    assert project.cli("run", "--expect-plan-hash", hashes["full"]) == 2  # the patch moved
    assert "not the expected (approved) plan" in capsys.readouterr().err
    model.write_text(model.read_text().replace("// an edit after the approval\n", ""))
    assert project.cli("run", "--expect-plan-hash", hashes["full"]) == 0
    assert "title?: number;" in model.read_text()
