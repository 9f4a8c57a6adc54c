"""A copy whose only change is its line endings (an editor's save, ``core.autocrlf``) is not
an edit (issue 38 item 1): removing its element deletes it, as for a file never touched —
not "no longer generated, but edited by you: kept", a conflict. And a refused run's hint
names what works for each kind of conflict it has (item 3)."""

from __future__ import annotations

from pathlib import Path

import pytest

from averos_ci.execute.regen.patching import CONFLICT_HINT, DELETED_HINT, KEPT_HINT
from tests.execute.regen.regen_project import Project, library

SHELF_FILES = ("src/app/model/shelf.ts", "src/app/pages/search-shelf.page.ts")
BOOK = "src/app/model/book.ts"


@pytest.fixture
def project(tmp_path: Path) -> Project:
    p = Project(tmp_path / "p", library())
    assert p.cli("run") == 0
    return p


def crlf(project: Project, rel: str) -> None:
    f = project.file(rel)
    f.write_bytes(f.read_bytes().replace(b"\n", b"\r\n"))


def test_files_only_re_ended_are_deleted_with_their_element(project: Project) -> None:
    for rel in (*SHELF_FILES, BOOK):
        crlf(project, rel)
    project.write(library(shelf=False))
    assert project.cli("plan", "--detailed-exitcode") == 4  # before: 5, two CONFLICTs (kept)
    assert project.cli("run") == 0
    assert not any(project.file(rel).exists() for rel in SHELF_FILES)
    book = project.file(BOOK).read_bytes()
    assert b"\r\n" in book and book.count(b"\n") == book.count(b"\r\n")  # your style kept


def test_a_refused_run_hints_what_works_for_each_kind_of_conflict(
    project: Project, capsys: pytest.CaptureFixture[str]
) -> None:
    kept = project.file(SHELF_FILES[0])
    kept.write_bytes(kept.read_bytes() + b"// my note\n")  # edited, then no longer generated
    project.write(library(shelf=False))
    capsys.readouterr()
    assert project.cli("run") == 5
    err = capsys.readouterr().err
    assert KEPT_HINT in err and CONFLICT_HINT not in err and DELETED_HINT not in err
