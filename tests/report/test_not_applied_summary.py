"""Settings the adapter did not apply are in the run's summary: console line, summary.txt and
summary.json (``notApplied``); a run without any keeps Averos's fields exactly."""

from __future__ import annotations

import json

from averos_ci._model import RunMode
from averos_ci.execute.adapters.angular.adapter import AngularSchematicsAdapter
from averos_ci.execute.adapters.mock import MockAdapter
from averos_ci.execute.averos_logs import summary_text
from averos_ci.execute.console import _summary_line
from averos_ci.execute.events import RunnerCompleted
from averos_ci.execute.summary import (
    NodeOutcome,
    NodeRecord,
    predicted_not_applied,
    summarize,
)
from tests.plan.plan_samples import example_raw, flagged_raw, plan_of


def test_the_summary_lists_what_was_not_applied() -> None:
    plan = plan_of(flagged_raw())
    nodes = list(plan.nodes)
    found = predicted_not_applied(AngularSchematicsAdapter({"templateCache": True}), nodes)
    flagged = {(n.node_id, n.setting) for n in found}
    assert ("auth:http-auth-config", "unauthorizedRedirect") in flagged
    records = [
        NodeRecord(
            node_id=n.id, phase=n.phase.value, command=n.command, outcome=NodeOutcome.SUCCEEDED
        )
        for n in nodes
    ]
    summary = summarize(records, mode=RunMode.STRICT, duration_ms=5, not_applied=found)
    doc = summary.to_file_json(adapter="angular-schematics")
    wire = doc["notApplied"]
    assert isinstance(wire, list) and {"nodeId", "setting", "reason"} == set(wire[0])
    json.dumps(doc)
    text = summary_text(summary, records)
    assert "Not applied" in text and "! auth:http-auth-config: unauthorizedRedirect:" in text
    event = RunnerCompleted(run_id="r", timestamp="t", plan_hash="h", summary=summary)
    assert "NOT APPLIED auth:http-auth-config: unauthorizedRedirect:" in _summary_line(event)


def test_an_adapter_without_the_method_leaves_the_summary_as_averos_writes_it() -> None:
    nodes = list(plan_of(example_raw()).nodes)
    assert predicted_not_applied(MockAdapter({}), nodes) == ()
    summary = summarize([], mode=RunMode.STRICT, duration_ms=1)
    assert "notApplied" not in summary.to_file_json()
    assert "Not applied" not in summary_text(summary, [])
