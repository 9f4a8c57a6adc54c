"""``averos-ci drift --detailed-exitcode``: 0 no drift (a user edit is not drift), 5
unresolved conflict markers (the workspace cannot be applied until they are resolved), with
the file-writing mock adapter through the CLI in process (4, drift: tests/state/test_drift.py
and the scenarios)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.execute.regen.regen_project import Project, library

MODEL = "src/app/model/book.ts"


def test_drift_detailed_exitcode_tells_edits_drift_and_conflict_markers_apart(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    p = Project(tmp_path / "p", library())
    assert p.cli("run") == 0
    assert p.cli("drift", "--detailed-exitcode") == 0
    model = p.file(MODEL)
    clean = model.read_text()
    model.write_text(clean.replace("title?: string;", "title?: string; // mine"))
    assert p.cli("drift", "--detailed-exitcode") == 0  # an edit is the user's, not drift
    model.write_text(
        clean.replace(
            "  title?: string;\n",
            "<<<<<<< yours (workspace)\n  title?: string; // mine\n=======\n"
            "  title?: number;\n>>>>>>> generated now\n",
        )
    )
    capsys.readouterr()
    assert p.cli("drift", "--detailed-exitcode") == 5
    assert f"{MODEL}:3" in capsys.readouterr().out
    assert p.cli("drift") == 0  # without the flag: a report, exit 0
