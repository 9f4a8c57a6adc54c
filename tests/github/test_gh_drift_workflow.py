"""examples/workflows/averos-drift.yml runs what the drift journey (tests/scenarios/github/
test_gh_drift.py) runs: every project discovered, one matrix job each running
``github drift --config <matrix.config>`` on a schedule and on demand, with no more token
than it needs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from averos_ci.forge.events import load_event
from averos_ci.github.routes import BATCHED, route
from averos_ci.onboard.workflow_rules import load_workflow, triggers
from tests.github.gh_world import EVENTS, REPO_ROOT

WORKFLOW = REPO_ROOT / "examples" / "workflows" / "averos-drift.yml"


def _workflow() -> dict[str, Any]:
    workflow = load_workflow(WORKFLOW)
    assert workflow is not None
    return workflow


def test_the_drift_workflow_checks_every_project_on_a_schedule_and_on_demand() -> None:
    workflow = _workflow()
    assert set(triggers(workflow)) == {"schedule", "workflow_dispatch"}
    assert workflow["permissions"] == {}
    discover, drift = workflow["jobs"]["discover"], workflow["jobs"]["drift"]
    listing = next(s for s in discover["steps"] if s.get("id") == "projects")
    assert "projects --format github-matrix" in listing["run"]
    assert "--changed" not in listing["run"]  # every project, not the changed ones
    assert discover["permissions"] == {"contents": "read"}
    # contents: write pushes the drift record to the state branch (the dashboard reads it)
    assert drift["permissions"] == {"contents": "write", "issues": "write"}
    assert drift["strategy"]["matrix"] == "${{ fromJSON(needs.discover.outputs.matrix) }}"
    assert drift["strategy"]["fail-fast"] is False
    (step,) = (s for s in drift["steps"] if s.get("uses") == "./.github/actions/averos-ci")
    assert step["with"] == {"command": "drift", "config": "${{ matrix.config }}"}
    checkout = drift["steps"][0]
    assert checkout["with"]["persist-credentials"] is False
    assert workflow["concurrency"]["cancel-in-progress"] is False


def test_drift_takes_schedule_and_workflow_dispatch_and_auto_sends_schedule_to_it(
    tmp_path: Path,
) -> None:
    schedule = tmp_path / "schedule.json"
    schedule.write_text(json.dumps({"schedule": "23 5 * * *", "repository": {"full_name": "o/r"}}))
    dispatch = EVENTS / "workflow_dispatch.json"
    for command, name, path in (
        ("drift", "schedule", schedule),
        ("drift", "workflow_dispatch", dispatch),
        ("auto", "schedule", schedule),
    ):
        taken = route(command, load_event(name, path))
        assert taken is not None and taken.flow.__name__ == "_drift", (command, name)
    assert route("drift", load_event("push", EVENTS / "push.json")) is None
    manual = route("auto", load_event("workflow_dispatch", dispatch))
    assert manual is not None and manual.flow.__name__ == "_apply_dispatch"  # as before
    assert "drift" in BATCHED
