"""Regenerate and merge with the real Averos schematics, on the library example (issue 21
"Proof" (b), (c), (d)): one applied project per session (tests/scenarios/angular/applied.py),
copied by each test.

(b) a member's type changes -> the model, the forms and the list use the new type;
(c) a user edit in a file the change touches survives byte for byte, and drift reports it;
(d) a user edit colliding with the change -> the plan shows the hunk, nothing is applied, exit 5.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from averos_ci.cli import run_cli
from averos_ci.execute.regen.tree import PristineStore, pristine_folder, snapshot
from averos_ci.state import FileStateStore
from tests.scenarios.angular.applied import LIBRARY, ApplyProject, ng_build, with_user_line

pytestmark = [pytest.mark.angular, pytest.mark.slow]

MODEL = "src/app/model/book.ts"
VIEW_LAYOUT = "src/assets/viewlayout/bookVL.json"
TITLE = (
    "{memberNature: simple, ename: Book, mname: title, memberType: string, memberTag: BusinessID}"
)
USER_LINE = "    myHandEditedNote?: string; // USER HAND EDIT\n"


@pytest.fixture
def project(applied_project: ApplyProject, angular_env: Path, tmp_path: Path) -> Path:
    """A copy of the library project as applied once per session."""
    return applied_project(LIBRARY, tmp_path / "p")


def _change_manifest(project: Path, old: str, new: str) -> None:
    manifest = project / "library.manifest.yaml"
    text = manifest.read_text()
    assert old in text
    manifest.write_text(text.replace(old, new))


def _pristine(project: Path, path: str) -> bytes:
    state = FileStateStore(project / ".averos/state.json").load()
    assert state is not None and state.pristine is not None
    tree = PristineStore(pristine_folder(project / ".averos/state.json")).load(state.pristine.key)
    assert tree is not None
    return tree.files[path]


def _with_user_line(text: str) -> str:
    return with_user_line(text, USER_LINE)


def test_a_clean_generation_declares_number_members_as_number(project: Path) -> None:
    model = (project / "workspace" / MODEL).read_text()
    assert "    pages!: number;" in model and "    title!: string;" in model


def test_type_change_reaches_model_form_and_list_and_builds(
    project: Path, angular_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = str(project / "averos.config.json")
    _change_manifest(project, TITLE, TITLE.replace("memberType: string", "memberType: number"))
    assert run_cli(["plan", "--config", config]) == 0
    out = capsys.readouterr().out
    assert "-/+ title" in out and "forces replacement: memberType" in out
    assert f"~ {MODEL} (changed" in out and f"~ {VIEW_LAYOUT} (changed" in out
    assert run_cli(["run", "--config", config]) == 0
    ws = project / "workspace"
    assert "    title!: number;" in (ws / MODEL).read_text()
    layout = json.loads((ws / VIEW_LAYOUT).read_text())
    for view in ("createUCViewLayout", "editUCViewLayout", "tableUCViewLayout"):  # forms, list
        (field,) = [f for f in layout[view]["ucViewLayout"] if f["entityFieldName"] == "title"]
        assert field["type"] == "number", view
    ng_build(ws, angular_env)


def test_a_user_edit_survives_the_change_byte_for_byte_and_drift_reports_it(
    project: Path, angular_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = str(project / "averos.config.json")
    ws = project / "workspace"
    model = ws / MODEL
    model.write_bytes(_with_user_line(model.read_bytes().decode()).encode())
    isbn = "      - {memberNature: simple, ename: Book, mname: isbn, memberType: string}\n"
    _change_manifest(project, f"      - {TITLE}\n", f"      - {TITLE}\n{isbn}")
    assert run_cli(["plan", "--config", config]) == 0
    out = capsys.readouterr().out
    assert f"~ {MODEL} (changed" in out and "your edits will be merged" in out
    assert run_cli(["run", "--config", config]) == 0
    capsys.readouterr()
    generated = _pristine(project, MODEL).decode()
    assert "    isbn!: string;" in generated  # the generator's change ...
    assert model.read_bytes() == _with_user_line(generated).encode()  # ... and the edit
    assert run_cli(["drift", "--config", config]) == 0  # edits are reported, not drift
    drift = capsys.readouterr()
    assert "user edits: 1 generated file(s) edited" in drift.out + drift.err
    assert f"- {MODEL}" in drift.out + drift.err
    ng_build(ws, angular_env)


def test_a_colliding_edit_is_a_conflict_shown_in_the_plan_and_nothing_is_applied(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = str(project / "averos.config.json")
    ws = project / "workspace"
    model = ws / MODEL
    mine = "    title!: string; // USER: kept as text on purpose"
    text = model.read_bytes().decode()
    assert text.count("    title!: string;") == 1
    model.write_bytes(text.replace("    title!: string;", mine).encode())
    _change_manifest(project, TITLE, TITLE.replace("memberType: string", "memberType: number"))
    before = snapshot(ws)
    state_before = (project / ".averos/state.json").read_bytes()
    assert run_cli(["plan", "--config", config, "--detailed-exitcode"]) == 5
    out = capsys.readouterr().out
    assert f"Conflict in {MODEL}:" in out
    assert "<<<<<<< yours (workspace)" in out and mine.strip() in out
    assert "    title!: number;" in out  # the generator's side of the hunk
    assert run_cli(["plan", "--config", config, "--format", "markdown"]) == 0
    markdown = capsys.readouterr().out
    # the conflict group stays open, with the conflicting regions as a diff block
    assert "<details open><summary>Conflicts (1)</summary>" in markdown
    assert "Conflicting regions:" in markdown and "```diff" in markdown
    assert run_cli(["run", "--config", config]) == 5
    err = capsys.readouterr().err
    assert MODEL in err and "--merge-conflicts=markers" in err
    assert snapshot(ws) == before  # nothing applied
    assert (project / ".averos/state.json").read_bytes() == state_before
