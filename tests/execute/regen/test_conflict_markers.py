"""Conflict markers left in the workspace (issue 38 item 2) are found, located ``file:line``, by
every command that would build on them — ``plan`` (exit 5 under ``--detailed-exitcode``),
``run`` (exit 5, with or without a manifest change, in either ``--merge-conflicts`` mode),
``drift``, ``preview`` and ``averos-ci conflict-markers`` (the pre-commit hook's command) — and
a resolution is accepted as the user's edit. With the file-writing mock adapter."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from averos_ci.cli import run_cli
from averos_ci.execute.regen.markers import marker_lines
from tests.execute.regen.regen_project import Project, library

MODEL = "src/app/model/book.ts"
REGION = (
    "<<<<<<< yours (workspace)\nmine\n||||||| generated before\nold\n=======\nnew\n>>>>>>> now\n"
)


@pytest.mark.parametrize(
    ("text", "lines"),
    [
        ("a\n" + REGION + "b\n" + REGION, (2, 10)),
        (REGION.replace("\n", "\r\n"), (1,)),  # a CRLF file
        ("<<<<<<<\nx\n=======\ny\n>>>>>>>\n", (1,)),  # markers without labels
        ("a\n=======\nb\n", ()),  # a rule in a comment
        ("<<<<<<<< banner\n=======\n>>>>>>>> banner\n", ()),  # eight, not seven
        ("<<<<<<< yours\nmine\n", ()),  # an opening alone is not a region
        ("<<<<<<< yours\nmine\n>>>>>>> gen\n", ()),  # no separator
        # averos-ci's own labelled lines count alone: a region half resolved
        ("a\nmine\n||||||| generated before\nold\nnew\nb\n", (3,)),
        ("<<<<<<< yours (workspace)\nmine\n", (1,)),
        ("x\n>>>>>>> generated now\n", (2,)),
        ("<<<<<<< yours (workspace)\nm\n<<<<<<< a\nx\n=======\ny\n>>>>>>> b\n", (1, 3)),
    ],
)
def test_only_complete_regions_are_markers(text: str, lines: tuple[int, ...]) -> None:
    assert marker_lines(text.encode()) == lines


@pytest.fixture
def project(tmp_path: Path) -> Project:
    p = Project(tmp_path / "p", library())
    assert p.cli("run") == 0
    return p


def test_markers_in_a_generated_file_stop_plan_run_and_drift_until_resolved(
    project: Project, capsys: pytest.CaptureFixture[str]
) -> None:
    model = project.file(MODEL)
    resolved = model.read_bytes() + b"// my line\n"
    model.write_bytes(resolved + REGION.encode())
    located = f"{MODEL}:{len(resolved.splitlines()) + 1}"
    capsys.readouterr()
    assert project.cli("plan", "--detailed-exitcode") == 5  # before: 0, "16 unchanged"
    out = capsys.readouterr().out
    assert f"unresolved conflict markers at {located}" in out
    assert project.cli("run") == 5  # nothing to change, still refused
    err = capsys.readouterr().err
    assert located in err and "delete its <<<<<<< ||||||| ======= >>>>>>> lines" in err
    assert project.cli("drift") == 0
    out = capsys.readouterr().out
    assert "conflict markers: 1 region(s)" in out and f"- {located}" in out
    assert "drift: none" in out and "user edits: 1 generated file(s)" in out
    assert project.cli("drift", "--format", "json") == 0
    assert json.loads(capsys.readouterr().out)["conflictMarkers"] == [located]
    project.write(library(title_type="number"))  # a change to apply: refused in either mode
    before = project.files()
    for mode in ("refuse", "markers"):
        assert project.cli("run", f"--merge-conflicts={mode}") == 5, mode
        assert located in capsys.readouterr().err
    assert project.files() == before
    model.write_bytes(resolved)  # resolved: the user's line kept, the markers gone
    assert project.cli("plan", "--detailed-exitcode") == 4
    assert project.cli("run") == 0
    assert b"// my line\n" in model.read_bytes() and b"<<<<<<<" not in model.read_bytes()


def test_the_conflict_markers_command(
    project: Project,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(project.root)
    assert run_cli(["conflict-markers"]) == 0  # the config's workspace, clean
    project.file("src/notes.md").write_text("a\n" + REGION)
    (project.ws / "node_modules").mkdir()
    (project.ws / "node_modules/x.js").write_text(REGION)  # dependencies are not checked
    capsys.readouterr()
    assert run_cli(["conflict-markers"]) == 5
    out = capsys.readouterr().out
    assert "ws/src/notes.md" not in out and "src/notes.md:2: unresolved conflict markers" in out
    assert "node_modules" not in out
    assert run_cli(["conflict-markers", "ws/src/notes.md", "averos.config.json"]) == 5
    assert capsys.readouterr().out.startswith("ws/src/notes.md:2: unresolved")
    assert run_cli(["conflict-markers", "averos.config.json"]) == 0
    # a folder is searched whole (its dependencies left out); a name that is not there is an
    # error, not a pass: a mistyped path must not pass the check
    assert run_cli(["conflict-markers", "ws"]) == 5
    out = capsys.readouterr().out
    assert "ws/src/notes.md:2: unresolved" in out and "node_modules" not in out
    assert run_cli(["conflict-markers", "src/notes.md"]) == 2  # relative to cwd: not there
    assert "src/notes.md: no such file or folder" in capsys.readouterr().err


def test_preview_refuses_to_build_a_workspace_with_markers(
    project: Project,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("AVEROS_CI_CACHE_DIR", str(tmp_path / "cache"))
    app = project.ws / "src/app"
    (app / "app.module.ts").write_text("export class AppModule {}\n")
    (app / "app.component.ts").write_text("x\n" + REGION)
    capsys.readouterr()
    assert project.cli("preview") == 5  # before: on to its tools and the build (exit 1)
    err = capsys.readouterr().err
    assert "src/app/app.component.ts:2" in err and "the app is not built" in err


def test_a_refused_run_says_what_works(
    project: Project, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 38 item 3: the hint names the ways out the documentation tests, not "adapt your
    edit" (an edit on the changed line conflicts however it is adapted)."""
    model = project.file(MODEL)
    model.write_text(model.read_text().replace("title?: string;", "title?: string; // mine"))
    project.write(library(title_type="number"))
    capsys.readouterr()
    assert project.cli("run") == 5
    err = " ".join(capsys.readouterr().err.split())
    assert "adapt your edit" not in err
    assert "an edit on a line the generator changes, or on a line next to one, conflicts" in err
    assert "its `generated now` side" in err and "at least one unchanged line away" in err
    assert "--merge-conflicts=markers" in err and "regeneration.md#conflicts" in err
