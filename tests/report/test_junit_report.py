"""JUnit XML: valid against Jenkins' junit-10.xsd, readable by junitparser, counts = summary."""

from __future__ import annotations

from pathlib import Path

import junitparser
import pytest
import xmlschema

from averos_ci.execute import ExecutionFailure, NodeOutcome, NodeRecord, RunMode
from averos_ci.execute.summary import summarize
from averos_ci.report import render_junit, write_junit
from tests.conftest import REPO_ROOT, copy_example

XSD = Path(__file__).parent / "data" / "junit-10.xsd"


@pytest.fixture(scope="module")
def schema() -> xmlschema.XMLSchema:
    return xmlschema.XMLSchema(str(XSD))


def records(tmp_path: Path) -> list[NodeRecord]:
    log = tmp_path / "entity.log"
    log.write_text("line 1\nschematic said <no> & \x1b[31mred\x1b[0m\n")
    failure = ExecutionFailure(code="SCHEMATIC_FAILED", message='exit 1: "bad" <input> & more',
                               details="npx ng g … \x00 control")  # fmt: skip
    return [
        NodeRecord(node_id="application:ToDoApp", phase="application", command="ng-add",
                   outcome=NodeOutcome.SUCCEEDED, attempts=1, duration_ms=0),
        NodeRecord(node_id="entity:ToDoTask", phase="entity", command="averos-entity",
                   outcome=NodeOutcome.FAILED, attempts=3, duration_ms=1234, failure=failure,
                   log_file=str(log)),
        NodeRecord(node_id="simple-field:ToDoTask:status", phase="simple-field",
                   command="add-simple-member", outcome=NodeOutcome.SKIPPED,
                   reason="dependency entity:ToDoTask failed"),
        NodeRecord(node_id="use-case:X", phase="use-case", command="advanced-crud",
                   outcome=NodeOutcome.SUCCEEDED, resumed=True, attempts=1),
        NodeRecord(node_id="page:About", phase="page", command="create-page",
                   outcome=NodeOutcome.CANCELLED, reason="interrupted by SIGTERM"),
    ]  # fmt: skip


def test_junit_is_valid_and_agrees_with_the_summary(
    tmp_path: Path, schema: xmlschema.XMLSchema
) -> None:
    recs = records(tmp_path)
    summary = summarize(recs, mode=RunMode.RESILIENT, duration_ms=1300)
    path = tmp_path / "out" / "junit.xml"
    write_junit(path, recs, timestamp="2026-01-01T00:00:00")
    schema.validate(str(path))

    xml = junitparser.JUnitXml.fromfile(str(path))
    suites = list(xml) if isinstance(xml, junitparser.JUnitXml) else [xml]
    cases = [case for suite in suites for case in suite]
    assert len(cases) == summary.succeeded + summary.failed + summary.skipped
    by_name = {c.name: c for c in cases}
    assert "page:About" not in by_name  # cancelled nodes are not test cases
    assert all(float(c.time) > 0 for c in cases)
    assert by_name["entity:ToDoTask"].classname == "entity"
    failures = [c for c in cases if any(isinstance(r, junitparser.Failure) for r in c.result)]
    skipped = [c for c in cases if any(isinstance(r, junitparser.Skipped) for r in c.result)]
    assert len(failures) == summary.failed and len(skipped) == summary.skipped
    failure = next(r for r in by_name["entity:ToDoTask"].result)
    assert failure.type == "SCHEMATIC_FAILED" and "<input>" in failure.message
    assert "schematic said <no>" in (failure.text or "")
    skip = next(r for r in by_name["simple-field:ToDoTask:status"].result)
    assert skip.message == "dependency entity:ToDoTask failed"
    suite = suites[0]
    assert (suite.tests, suite.failures, suite.skipped) == (4, 1, 1)


def test_empty_run_is_valid(schema: xmlschema.XMLSchema) -> None:
    schema.validate(render_junit([]).decode())


def test_cli_junit_matches_the_summary(tmp_path: Path, schema: xmlschema.XMLSchema) -> None:
    import json
    import os
    import subprocess
    import sys

    project = copy_example(tmp_path / "p", mock=True)
    config = json.loads((project / "averos.config.json").read_text())
    config.update(mode="resilient", maxAttempts=1,
                  adapterOptions={"failNodes": ["entity:ToDoTask"]})  # fmt: skip
    (project / "averos.config.json").write_text(json.dumps(config))
    r = subprocess.run(
        [sys.executable, "-m", "averos_ci", "run", "--config=averos.config.json",
         "--junit", "junit.xml", "--summary-json", "summary.json"],
        cwd=project, capture_output=True, text=True, timeout=120,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
    )  # fmt: skip
    assert r.returncode == 1, r.stderr
    schema.validate(str(project / "junit.xml"))
    summary = json.loads((project / "summary.json").read_text())
    suite = next(iter(junitparser.JUnitXml.fromfile(str(project / "junit.xml"))))
    assert suite.tests == summary["succeeded"] + summary["failed"] + summary["skipped"]
    assert (suite.failures, suite.skipped) == (summary["failed"], summary["skipped"])
