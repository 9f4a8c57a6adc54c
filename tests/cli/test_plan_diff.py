"""``averos-ci plan --diff``: the code change as one git-style unified diff, taken from the
hashed patch — ``git apply --check`` accepts it in a copy of the workspace, and applied there
it gives the files the apply itself writes."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.execute.regen.regen_project import Project, library


def _git(cwd: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", *args], cwd=cwd, input=stdin, text=True, capture_output=True, check=False
    )


def test_plan_diff_round_trips_through_git_apply(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = Project(tmp_path / "p", library(shelf=False))
    assert project.cli("run") == 0
    project.write(library(shelf=True, title_type="textarea"))  # files created and changed
    capsys.readouterr()
    assert project.cli("plan", "--diff") == 0
    diff = capsys.readouterr().out
    assert diff.startswith("diff --git a/") and "new file mode 100644\n--- /dev/null\n" in diff
    assert "\n--- a/" in diff  # a changed file too

    copy = tmp_path / "copy"
    shutil.copytree(project.ws, copy)
    assert _git(copy, "init", "-q").returncode == 0
    check = _git(copy, "apply", "--check", "-", stdin=diff)
    assert check.returncode == 0, check.stderr
    assert _git(copy, "apply", "-", stdin=diff).returncode == 0
    shutil.rmtree(copy / ".git")

    assert project.cli("run") == 0
    assert {
        p.relative_to(copy).as_posix(): p.read_bytes() for p in copy.rglob("*") if p.is_file()
    } == project.files()


def test_plan_diff_prints_nothing_without_a_code_change(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = Project(tmp_path / "p", library())
    assert project.cli("run") == 0
    capsys.readouterr()
    assert project.cli("plan", "--diff", "--detailed-exitcode") == 0
    out = capsys.readouterr()
    assert out.out == "" and "no code change" in out.err
