"""``averos-ci state show`` and ``state rollback`` on a local project (issue 38, item 6): no
remote, no state branch; the history is git's record of the committed state file, and a
rollback is an apply of the earlier manifest that keeps the user's edits (the file-writing
mock adapter, through the CLI in process)."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from averos_ci.cli import run_cli
from tests.execute.regen.regen_project import Project, clean_generation, library

MODEL = "src/app/model/book.ts"
SHELF = "src/app/model/shelf.ts"
EDIT = "  myNote?: string; // USER HAND EDIT\n"
IDENTITY = ("-c", "user.name=Local Test", "-c", "user.email=local@example.com")


def git(root: Path, *args: str) -> str:
    proc = subprocess.run(
        ["git", *IDENTITY, "-C", str(root), *args], capture_output=True, text=True, check=True
    )
    return proc.stdout.strip()


def state(project: Project, *args: str) -> int:
    return run_cli(["state", *args, "--config", str(project.config)])


@pytest.fixture
def project(tmp_path: Path) -> Project:
    """Applied twice: serial 1 (books) committed, serial 2 (books and shelves) not yet."""
    p = Project(tmp_path / "p", library(shelf=False))
    git(p.root, "init", "-q", "-b", "main")
    assert p.cli("run") == 0
    git(p.root, "add", "-A")
    git(p.root, "commit", "-q", "-m", "books")
    p.write(library(shelf=True))
    assert p.cli("run") == 0
    return p


def test_show_lists_the_local_history_and_rollback_undoes_the_last_apply_keeping_edits(
    project: Project, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = project.file(MODEL)
    model.write_text(
        model.read_text().replace("export class Book {\n", "export class Book {\n" + EDIT)
    )
    first = git(project.root, "rev-parse", "HEAD")
    capsys.readouterr()
    assert state(project, "show") == 0
    out = capsys.readouterr().out
    assert "local project: .averos/state.json and its history in git" in out
    assert "* serial 2: " in out and "; not committed" in out
    assert (
        "  serial 1: " in out and f"; commit {first[:12]} " in out and out.rstrip().count("\n") >= 3
    )
    assert "`averos-ci state rollback` undoes the last apply (back to serial 1)" in out
    assert state(project, "show", "--format", "json") == 0
    shown = json.loads(capsys.readouterr().out)
    assert [(v["serial"], v["commit"]) for v in shown["versions"]] == [(2, None), (1, first)]
    assert shown["formatVersion"] == 1 and shown["current"]["serial"] == 2

    files, applied = project.files(), project.state()
    assert state(project, "rollback") == 0  # a dry run: the plan, nothing written
    out = capsys.readouterr().out
    assert "- entity:Shelf" in out and "Dry run: nothing was written" in out
    assert f"goes back to its text of commit {first[:12]}" in out
    assert project.files() == files and project.state() == applied

    assert state(project, "rollback", "--yes") == 0
    out = capsys.readouterr().out
    assert "Rolled back: the application of serial 1 is in the workspace" in out
    assert not project.file(SHELF).exists()
    clean = clean_generation(tmp_path / "clean", library(shelf=False))
    expected = (
        clean[MODEL].decode().replace("export class Book {\n", "export class Book {\n" + EDIT)
    )
    assert model.read_text() == expected  # serial 1's file, with the hand edit kept
    assert set(project.files()) == set(clean)
    now = project.state()
    assert (
        now["serial"] == 3
        and now["manifest"]
        == json.loads(git(project.root, "show", f"{first}:.averos/state.json"))["manifest"]
    )
    manifest = (project.root / "app.manifest.json").read_text()
    assert manifest == json.dumps(library(shelf=False), indent=1)  # the committed text
    assert project.cli("plan", "--detailed-exitcode") == 0  # nothing left to apply
    # serial 2 was never committed: the history is serial 3 (serial 1's manifest) and 1
    assert state(project, "show") == 0
    out = capsys.readouterr().out
    assert "serial 2 was applied and replaced before being committed" in out
    assert "undoes the last apply" not in out


def test_rollback_refuses_what_it_cannot_do_and_keeps_an_edited_manifest(
    project: Project, capsys: pytest.CaptureFixture[str]
) -> None:
    assert state(project, "rollback", "--to", "zz") == 2
    assert "neither a commit" in capsys.readouterr().err
    assert state(project, "rollback", "--to", "7") == 2
    assert "pick one of: serial 1 (commit " in capsys.readouterr().err
    # the manifest edited since the last apply: applied from the state, the file kept
    raw = library(shelf=True)
    raw["applicationName"] = "Renamed"
    project.write(raw)
    assert state(project, "rollback", "--yes", "--to", "1") == 0
    out = capsys.readouterr().out
    assert "app.manifest.json is not changed (app.manifest.json was edited since" in out
    assert json.loads((project.root / "app.manifest.json").read_text()) == raw
    assert not project.file(SHELF).exists() and project.state()["serial"] == 3
    # the hint, followed as written, keeps the rollback: the next plan has nothing to do
    shown = re.search(r"`git show ([0-9a-f]{12}):<its path> > app\.manifest\.json`", out)
    assert shown is not None, out
    rolled_back = git(project.root, "show", f"{shown.group(1)}:app.manifest.json")
    (project.root / "app.manifest.json").write_text(rolled_back + "\n")
    assert project.cli("plan", "--detailed-exitcode") == 0


def test_a_project_with_one_applied_state_has_nothing_to_roll_back(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    p = Project(tmp_path / "p", library(shelf=False))
    git(p.root, "init", "-q", "-b", "main")
    assert state(p, "rollback") == 2
    assert "nothing is applied" in capsys.readouterr().err
    assert p.cli("run") == 0
    assert state(p, "show") == 0
    out = capsys.readouterr().out
    assert "* serial 1: " in out and "the state is not committed yet" in out
    assert state(p, "rollback") == 2
    err = capsys.readouterr().err
    assert "no earlier applied state in git's history" in err and "git commit" in err


def test_a_project_with_a_remote_is_the_state_branchs_unless_local_is_said(
    project: Project, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    origin = tmp_path / "origin.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(origin))
    git(project.root, "remote", "add", "origin", str(origin))
    capsys.readouterr()
    # a remote with no state branch (a local project pushed to GitLab, a backup), its state
    # file holding a state: still the local project init set up
    assert state(project, "show", "--format", "json") == 0
    assert json.loads(capsys.readouterr().out)["current"]["serial"] == 2
    # once the remote's state branch is there (fetched), it is the state branch's
    git(project.root, "update-ref", "refs/remotes/origin/averos-state", "HEAD")
    assert state(project, "rollback", "--reason", "broke") == 2
    err = capsys.readouterr().err
    assert "--to is required to roll back the state branch" in err and "hint:" in err
    assert state(project, "rollback", "--to", "abcdef1") == 2
    assert "--reason is required" in capsys.readouterr().err
    assert state(project, "show", "--local", "--format", "json") == 0
    assert json.loads(capsys.readouterr().out)["current"]["serial"] == 2


def test_an_edit_that_collides_with_the_rollback_refuses_it_and_writes_nothing(
    project: Project, capsys: pytest.CaptureFixture[str]
) -> None:
    model = project.file(MODEL)
    model.write_text(model.read_text().replace("shelf?: Shelf;", "shelf?: Shelf; // mine"))
    files, applied = project.files(), project.state()
    manifest = (project.root / "app.manifest.json").read_text()
    capsys.readouterr()
    assert state(project, "rollback") == 5  # the dry run says it cannot be applied
    assert "NOT applicable" in capsys.readouterr().out
    assert state(project, "rollback", "--yes") == 5
    assert "shelf?: Shelf; // mine" in capsys.readouterr().err  # the hunk, with the hint
    assert project.files() == files and project.state() == applied
    assert (project.root / "app.manifest.json").read_text() == manifest
