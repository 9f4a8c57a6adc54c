"""How a batch's step outputs are read and combined (averos_ci.github.batch.outputs); the
whole batch on the fake GitHub: test_batch_outputs.py."""

from __future__ import annotations

from pathlib import Path

from averos_ci.forge.actions_env import ActionsEnv, StepReport
from averos_ci.github.batch.outputs import combine_all, parse_outputs


def test_outputs_are_read_back_as_the_step_report_writes_them_and_the_last_value_wins(
    tmp_path: Path,
) -> None:
    out = tmp_path / "output"
    env = ActionsEnv(
        event_name="push", event_path=tmp_path / "e.json", repository="o/r", output=out
    )
    first = StepReport(env)
    first.set(plan_hash="a" * 64, success=True, junit_path="/r/p1/junit.xml")
    first.flush()
    second = StepReport(env)
    second.set(success=False, junit_path="/r/p1/junit.xml\n/r/p2/junit.xml\n", note="x=1 <<y")
    second.flush()
    assert parse_outputs(out.read_text(encoding="utf-8")) == {
        "plan-hash": "a" * 64,
        "success": "false",
        "junit-path": "/r/p1/junit.xml\n/r/p2/junit.xml\n",
        "note": "x=1 <<y",
    }


def test_a_project_that_set_nothing_makes_the_batch_unapproved_and_unsuccessful() -> None:
    """The second project failed before it said anything (or never ran): the batch is not
    approved, not applied; what the others said still counts and keeps its place."""
    done = {
        "approved": "true",
        "success": "true",
        "has-changes": "false",
        "succeeded": "3",
        "failed": "0",
        "plan-hash": "h1",
        "patch-path": "/t/averos-ci-patch/averos-patch-1.json",
    }
    changed = {**done, "has-changes": "true", "succeeded": "2", "plan-hash": "h3"}
    changed["patch-path"] = "/t/averos-ci-patch/averos-patch-3.json"
    combined = combine_all([done, {}, changed])
    assert combined == {
        "approved": "false",
        "success": "false",
        "has-changes": "true",
        "succeeded": "5",
        "failed": "0",
        "plan-hash": "h1\n\nh3",
        "patch-path": "/t/averos-ci-patch",
    }
    assert combine_all([done, changed])["approved"] == "true"
