"""A run that only applies a code change reports it (issue 38 item 5): removing an entity runs
no node in the workspace — the regenerating adapter generates the new manifest in a scratch
folder and writes the difference. The console's last line, ``summary.txt``/``summary.json``,
JUnit and the job summary say the run succeeded and what it wrote, file by file, with the time
it took; the clean generation's nodes keep Averos's counts."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.execute.regen.regen_project import Project, library

SHELF = "src/app/model/shelf.ts"


def test_a_code_change_only_run_reports_success_and_the_files_it_wrote(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = Project(tmp_path / "p", library())
    assert project.cli("run") == 0
    project.write(library(shelf=False))  # a removal: no node to run in the workspace
    reports = tmp_path / "reports"
    capsys.readouterr()
    assert (
        project.cli(
            "run",
            "--junit",
            str(reports / "junit.xml"),
            "--summary-json",
            str(reports / "summary.json"),
            "--summary-md",
            str(reports / "summary.md"),
        )
        == 0
    )
    out = capsys.readouterr().out.splitlines()
    assert not project.file(SHELF).exists()

    # one "run succeeded" line, the last, after the code change is written, with its counts
    succeeded = [line for line in out if line.startswith("run succeeded")]
    assert succeeded == [out[-1]], out
    assert "; code change: 6 file(s) (4 changed, 2 deleted), +0 -10 in " in out[-1], out[-1]

    summary = json.loads((reports / "summary.json").read_text())
    assert summary["success"] is True and summary["total"] == summary["succeeded"] > 0
    change = summary["codeChange"]
    assert {k: change[k] for k in ("files", "created", "changed", "deleted", "added")} == {
        "files": 6,
        "created": 0,
        "changed": 4,
        "deleted": 2,
        "added": 0,
    }
    assert change["removed"] == 10 and summary["durationMs"] >= change["durationMs"]
    logs = project.root / ".averos/logs"
    assert json.loads((logs / "summary.json").read_text())["codeChange"] == change

    text = (logs / "summary.txt").read_text()
    assert "Status    : SUCCESS" in text and f"✓ file:{SHELF}" in text, text

    suite = ET.parse(reports / "junit.xml").getroot().find("testsuite")
    assert suite is not None
    cases = suite.iter("testcase")
    files = {c.get("name"): c for c in cases if c.get("classname") == "code-change"}
    assert f"file:{SHELF}" in files and len(files) == 6
    # each file's time is its share of the code change's duration (a few ms may round to 0)
    assert all(c.get("time") is not None and float(c.get("time") or 0) >= 0 for c in files.values())
    assert suite.find(".//failure") is None

    markdown = (reports / "summary.md").read_text()
    assert "**Code change written:** 6 file(s) (4 changed, 2 deleted), +0 -10 in " in markdown
    assert f"file:{SHELF}" in markdown
