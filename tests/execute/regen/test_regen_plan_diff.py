"""``plan --diff`` through the CLI is what ``run`` writes (issue 37: what a reviewer approves
is what they see): ``git apply`` of it on a copy of the workspace gives the files the run then
writes, byte for byte — for a merged file whose last line has no newline, and for the files
of a renamed entity the user never edited, which the plan shows as renames (issue 38 item 5),
never as a deletion and a creation."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from averos_ci.execute.regen.tree import snapshot
from averos_ci.plan.patch import NO_NEWLINE
from tests.execute.regen.regen_project import Project, library

OLD, NEW = "src/app/model/book.ts", "src/app/model/volume.ts"
I18N = "src/assets/i18n/en.txt"


@pytest.fixture
def project(tmp_path: Path) -> Project:
    p = Project(tmp_path / "p", library())
    assert p.cli("run") == 0
    return p


def _git_applied(project: Project, diff: Path, copy: Path) -> dict[str, bytes]:
    """The workspace as it is now, in a git repository, with ``plan --diff`` applied by git."""
    shutil.copytree(project.ws, copy)
    subprocess.run(["git", "init", "-q"], cwd=copy, check=True)
    for args in (["--check"], []):
        done = subprocess.run(["git", "apply", *args, str(diff)], cwd=copy, capture_output=True)
        assert done.returncode == 0, done.stderr.decode() + diff.read_text()
    return snapshot(copy)


def _with_entries(raw: dict[str, Any], a: str) -> dict[str, Any]:
    """``raw`` with three more translations, the first of them ``a``."""
    entries = raw["languages"][0]["translationEntries"]
    for key, value in (("a", a), ("b", "B"), ("c", "C")):
        entries.append({"localeID": f"z.{key}", "localeValue": value})
    return raw


def test_plan_diff_of_a_last_line_without_newline_is_what_run_writes(
    project: Project, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project.write(_with_entries(library(), "A"))
    assert project.cli("run") == 0
    i18n = project.file(I18N)
    # the user's editor drops the final newline; the generator changes a line two above it
    i18n.write_bytes(i18n.read_bytes().rstrip(b"\n"))
    project.write(_with_entries(library(), "All"))
    diff = tmp_path / "change.diff"
    assert project.cli("plan", "--diff", "--out", str(diff)) == 0
    assert diff.read_text().endswith(" z.c=C\n" + NO_NEWLINE), diff.read_text()
    after_git = _git_applied(project, diff, tmp_path / "copy")
    assert project.cli("run") == 0
    assert after_git == project.files()
    assert project.files()[I18N].endswith(b"\nz.a=All\nz.b=B\nz.c=C")  # as the user left it


def test_a_renamed_entity_the_user_never_edited_moves_its_files_as_renames(
    project: Project, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    raw = library()
    book = raw["entities"][0]
    book.update(name="Volume", renamedFrom="Book")
    for m in book["members"]:
        m["ename"] = "Volume"
    raw["useCases"][0]["ename"] = "Volume"
    project.write(raw)
    capsys.readouterr()
    assert project.cli("plan") == 0
    text = capsys.readouterr().out
    assert f"→ {OLD} → {NEW} (renamed, +1 -1)\n" in text, text  # its content change only
    assert "your edits will be merged" not in text
    assert f"- {OLD} (deleted" not in text and f"+ {NEW} (created" not in text
    saved = tmp_path / "plan.json"
    assert project.cli("plan", "--out", str(saved)) == 0
    counts = json.loads(saved.read_text())["summary"]["files"]
    assert (counts["renamed"], counts["created"], counts["deleted"]) == (1, 0, 0), counts
    diff = tmp_path / "change.diff"
    assert project.cli("plan", "--diff", "--out", str(diff)) == 0
    assert f"rename from {OLD}\nrename to {NEW}\n" in diff.read_text()
    after_git = _git_applied(project, diff, tmp_path / "copy")
    assert project.cli("run") == 0
    assert after_git == project.files()  # the old file removed, the new one written
    assert OLD not in after_git and after_git[NEW].startswith(b"export class Volume {\n")
