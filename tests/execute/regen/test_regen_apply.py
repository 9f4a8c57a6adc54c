"""Regenerate and merge through the CLI (issue 21), with the file-writing mock adapter."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.execute.regen.regen_project import Project, clean_generation, library, member

MODEL = "src/app/model/book.ts"
SHELF = "src/app/model/shelf.ts"


@pytest.fixture
def project(tmp_path: Path) -> Project:
    p = Project(tmp_path / "p", library())
    assert p.cli("run") == 0
    return p


def test_a_regenerating_run_writes_averos_own_log_files(project: Project) -> None:
    logs = project.root / ".averos/logs"
    records = [json.loads(line) for line in (logs / "execution-log.jsonl").read_text().splitlines()]
    assert records and all(r["success"] is True for r in records)
    assert {r["nodeId"] for r in records} >= {"entity:Book", "entity:Shelf"}
    assert (logs / "execution-plan.json").is_file()


def test_running_an_unchanged_manifest_again_changes_nothing(
    project: Project, capsys: pytest.CaptureFixture[str]
) -> None:
    state = (project.root / ".averos/state.json").read_bytes()
    files = project.files()
    capsys.readouterr()
    assert project.cli("run") == 0
    out = capsys.readouterr().out
    assert "run succeeded (strict): 0 nodes" in out and "applied the code change" not in out
    assert (project.root / ".averos/state.json").read_bytes() == state  # not even the serial
    assert project.files() == files


def test_a_removal_deletes_the_generated_files_and_the_plan_shows_it(
    project: Project, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert project.file(SHELF).is_file()
    project.write(library(shelf=False))
    capsys.readouterr()
    assert project.cli("plan", "--detailed-exitcode") == 4  # never "no changes"
    out = capsys.readouterr().out
    assert "- entity:Shelf  (destroy: no longer in the manifest)" in out
    assert "- use-case:SearchShelf  (destroy" in out
    assert f"  - {SHELF} (deleted, +0 -" in out
    assert "No changes" not in out
    assert project.cli("run") == 0
    assert not project.file(SHELF).exists()
    assert not any(b"Shelf" in data for data in project.files().values())
    assert project.files() == clean_generation(tmp_path / "clean", library(shelf=False))
    assert project.cli("plan", "--detailed-exitcode") == 0  # applied: nothing pending


def test_a_type_change_is_a_replacement_that_applies(
    project: Project, capsys: pytest.CaptureFixture[str]
) -> None:
    project.write(library(title_type="number"))
    capsys.readouterr()
    assert project.cli("plan", "--detailed-exitcode") == 4
    out = capsys.readouterr().out
    assert "-/+ title  (forces replacement: memberType cannot be updated in place)" in out
    assert f"  ~ {MODEL} (changed, +1 -1)" in out
    assert project.cli("run") == 0
    assert "  title?: number;\n" in project.file(MODEL).read_text()


def test_a_user_edit_survives_byte_for_byte_and_drift_keeps_reporting_it(
    project: Project, capsys: pytest.CaptureFixture[str]
) -> None:
    model = project.file(MODEL)
    edited = model.read_text().replace(
        "export class Book {\n", "export class Book {\n  myNote?: string; // USER HAND EDIT\n"
    )
    model.write_text(edited)
    raw = library()
    raw["entities"][0]["members"].append(member("Book", "priority", "number"))
    project.write(raw)
    capsys.readouterr()
    assert project.cli("plan") == 0
    assert f"~ {MODEL} (changed, +1 -0)  your edits will be merged" in capsys.readouterr().out
    assert project.cli("run") == 0
    text = model.read_text()
    assert "  myNote?: string; // USER HAND EDIT\n" in text  # the whole line, untouched
    assert "  priority?: number;\n" in text  # the manifest's type, not the schematic's string
    capsys.readouterr()
    assert project.cli("drift") == 0
    out = capsys.readouterr().out
    assert "user edits: 1 generated file(s)" in out and MODEL in out
    project.file(SHELF).unlink()
    assert project.cli("drift", "--format", "json") == 0
    report = json.loads(capsys.readouterr().out)
    assert report["userEdits"] == [MODEL] and report["userDeleted"] == [SHELF]


def test_a_collision_is_refused_with_its_hunks_and_nothing_is_written(
    project: Project, capsys: pytest.CaptureFixture[str]
) -> None:
    model = project.file(MODEL)
    model.write_text(model.read_text().replace("title?: string;", "title?: string; // mine"))
    before_files, before_state = project.files(), project.state()
    project.write(library(title_type="number"))
    capsys.readouterr()
    assert project.cli("plan", "--detailed-exitcode") == 5
    out = capsys.readouterr().out
    assert f"! file:{MODEL}  (conflict: your edits collide" in out
    assert f"Conflict in {MODEL}:" in out and "title?: string; // mine" in out
    assert project.cli("run") == 5
    err = capsys.readouterr().err
    assert "nothing was written" in err and "title?: number;" in err
    assert "--merge-conflicts=markers" in err
    assert project.files() == before_files and project.state() == before_state


def test_merge_conflicts_markers_writes_git_conflict_markers(
    project: Project, capsys: pytest.CaptureFixture[str]
) -> None:
    model = project.file(MODEL)
    model.write_text(model.read_text().replace("title?: string;", "title?: string; // mine"))
    project.write(library(title_type="number"))
    assert project.cli("run", "--merge-conflicts", "markers") == 0
    text = model.read_text()
    assert "<<<<<<< yours (workspace)\n  title?: string; // mine\n" in text
    assert "||||||| generated before\n  title?: string;\n" in text
    assert "=======\n  title?: number;\n>>>>>>> generated now\n" in text
    assert project.state()["manifest"]["entities"]["Book"]["members"][1]["memberType"] == "number"
    capsys.readouterr()
    assert project.cli("drift") == 0
    assert MODEL in capsys.readouterr().out  # the file to reconcile stays reported


def test_an_edited_file_no_longer_generated_is_kept_as_a_conflict(
    project: Project, capsys: pytest.CaptureFixture[str]
) -> None:
    with project.file(SHELF).open("a") as f:
        f.write("// my shelf notes\n")
    project.write(library(shelf=False))
    capsys.readouterr()
    assert project.cli("plan", "--detailed-exitcode") == 5
    assert f"! {SHELF} (kept, +0 -0)  CONFLICT: no longer generated" in capsys.readouterr().out
    assert project.cli("run", "--merge-conflicts", "markers") == 0
    assert "// my shelf notes" in project.file(SHELF).read_text()  # never deleted silently
    assert not project.file("src/app/pages/search-shelf.page.ts").exists()


def test_a_rename_carries_the_users_edit_into_the_renamed_file(
    project: Project, capsys: pytest.CaptureFixture[str]
) -> None:
    model = project.file(MODEL)
    model.write_text(model.read_text().replace("  pages?", "  // USER: keep me\n  pages?"))
    raw = library()
    book = raw["entities"][0]
    book.update(name="Volume", renamedFrom="Book")
    for m in book["members"]:
        m["ename"] = "Volume"
    raw["useCases"][0]["ename"] = "Volume"
    project.write(raw)
    capsys.readouterr()
    assert project.cli("plan") == 0
    out = capsys.readouterr().out
    assert "→ src/app/model/volume.ts (renamed, " in out and "your edits will be merged" in out
    assert project.cli("run") == 0
    assert not model.exists()
    text = project.file("src/app/model/volume.ts").read_text()
    assert text.startswith("export class Volume {\n") and "  // USER: keep me\n" in text


def test_a_new_file_where_the_user_has_another_is_merged_with_an_empty_base(
    project: Project, capsys: pytest.CaptureFixture[str]
) -> None:
    page = project.file("src/app/pages/create-book.page.ts")
    page.write_text("// my own page\n")
    raw = library()
    raw["useCases"].append({"name": "CreateBook", "ename": "Book", "useCaseType": "Create_Entity"})
    project.write(raw)
    capsys.readouterr()
    assert project.cli("plan", "--detailed-exitcode") == 5
    out = capsys.readouterr().out
    assert "! file:src/app/pages/create-book.page.ts  (conflict: your edits collide" in out
    assert "<<<<<<< yours (workspace)\n    // my own page\n" in out
    assert page.read_text() == "// my own page\n"


def test_the_patch_is_in_the_json_plan_and_in_the_plan_hash(
    project: Project, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project.write(library(title_type="number"))
    saved = tmp_path / "plan.json"
    assert project.cli("plan", "--out", str(saved)) == 0
    doc = json.loads(saved.read_text())
    [change] = doc["codePatch"]["files"]
    assert change["path"] == MODEL and change["status"] == "changed"
    assert "-  title?: string;\n+  title?: number;\n" in change["diff"]
    # the workspace moves after the plan: the patch, so the plan, is no longer the same
    model = project.file(MODEL)
    model.write_text(model.read_text() + "// later edit\n")
    capsys.readouterr()
    assert project.cli("run", "--plan", str(saved)) == 1
    assert "the manifest or the state changed since" in capsys.readouterr().err
    assert "title?: string;" in model.read_text()  # nothing applied
    model.write_text(model.read_text().replace("// later edit\n", ""))
    assert project.cli("run", "--plan", str(saved)) == 0
    assert "title?: number;" in model.read_text()


def test_migration_from_a_state_without_a_pristine_tree_shows_edits_found(
    project: Project, capsys: pytest.CaptureFixture[str]
) -> None:
    state_path = project.root / ".averos/state.json"
    state = project.state()
    del state["pristine"]
    state["formatVersion"] = 3
    state_path.write_text(json.dumps(state))
    model = project.file(MODEL)
    model.write_text(
        model.read_text().replace("export class Book {\n", "export class Book {\n// mangled\n")
    )
    project.write(library(title_type="number"))
    capsys.readouterr()
    assert project.cli("plan") == 0
    out = capsys.readouterr().out
    assert "Edits found: 1 file(s) differ from a clean generation" in out and MODEL in out
    assert project.cli("run") == 0
    text = model.read_text()
    assert "// mangled\n" in text and "title?: number;" in text  # kept, never overwritten
    capsys.readouterr()
    assert project.cli("plan") == 0
    assert "Edits found" not in capsys.readouterr().out  # once


def test_a_dry_run_shows_the_patch_and_writes_nothing(
    project: Project, capsys: pytest.CaptureFixture[str]
) -> None:
    averos = project.root / ".averos"
    before = {p: p.read_bytes() for p in averos.rglob("*") if p.is_file()}
    files = project.files()
    project.write(library(shelf=False))
    capsys.readouterr()
    assert project.cli("run", "--dry-run") == 0
    assert f"- {SHELF} (deleted, +0 -" in capsys.readouterr().out
    assert project.files() == files
    assert {p: p.read_bytes() for p in averos.rglob("*") if p.is_file()} == before


def test_the_patch_never_shows_a_sensitive_value(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    raw = library(shelf=False)
    secret = "/api/s3cr3t-endpoint-value"
    raw["serviceConfigurations"] = [
        {"type": "service", "name": "BookServiceConfiguration", "id": "BookService",
         "apiHost": "127.0.0.1", "apiPort": 3000, "apiProtocol": "http", "apiEndPoint": secret}
    ]  # fmt: skip
    raw["entities"][0]["sname"] = "BookService"
    project = Project(tmp_path / "p", library(shelf=False))
    config = json.loads(project.config.read_text())
    config["sensitive"] = ["service-config:*/apiEndPoint"]
    project.config.write_text(json.dumps(config))
    assert project.cli("run") == 0  # a workspace to merge into: the plan has a code patch
    project.write(raw)
    capsys.readouterr()
    assert project.cli("plan", "--format", "json") == 0
    out = capsys.readouterr().out
    assert secret not in out and "(sensitive)" in out
    doc = json.loads(out)
    diffs = "".join(f["diff"] for f in doc["codePatch"]["files"])
    assert "apiEndPoint=(sensitive)" in diffs
    assert project.cli("run") == 0
    assert secret not in capsys.readouterr().out
    written = project.file("src/app/config/service-config/BookServiceConfiguration.txt")
    assert f"apiEndPoint={secret}\n" in written.read_text()  # the real value is generated


def test_a_failed_generation_is_a_failed_run_that_resumes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from averos_ci.config import load_config
    from averos_ci.planning import apply

    project = Project(tmp_path / "p", library())
    config = json.loads(project.config.read_text())
    config["adapterOptions"] = {"writeFiles": True, "failNodes": ["use-case:SearchShelf"]}
    project.config.write_text(json.dumps(config))
    assert project.cli("run") == 1  # a node of the clean generation failed: a run failure
    assert project.files() == {}  # nothing merged
    assert not (project.root / ".averos/state.json").exists()
    assert list((project.root / ".averos/regen").glob("*/checkpoints.jsonl"))
    config["adapterOptions"] = {"writeFiles": True}  # the failure is gone (same plan identity)
    project.config.write_text(json.dumps(config))
    outcome = apply(load_config(project.config))
    assert outcome.summary.success
    resumed = [r.node_id for r in outcome.records if r.resumed]
    assert "application:LibraryApp" in resumed and "use-case:SearchShelf" not in resumed
    assert project.files() == clean_generation(tmp_path / "clean", library())
    assert not (project.root / ".averos/regen").exists()  # the scratch workspace is gone


def test_a_manifest_the_generator_cannot_generate_is_a_conflict_of_the_plan(
    project: Project, capsys: pytest.CaptureFixture[str]
) -> None:
    config = json.loads(project.config.read_text())
    config["adapterOptions"] = {"writeFiles": True, "failNodes": ["simple-field:Book:title"]}
    project.config.write_text(json.dumps(config))
    project.write(library(title_type="number"))
    capsys.readouterr()
    assert project.cli("plan", "--detailed-exitcode") == 5
    out = capsys.readouterr().out
    assert "Code change: CONFLICT: a clean generation of the manifest fails at " in out
    assert "simple-field:Book:title" in out
