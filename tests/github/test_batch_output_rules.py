"""How a batch's step outputs are read and combined (averos_ci.github.batch.outputs); the
whole batch on the fake GitHub: test_batch_outputs.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from averos_ci.errors import RunFailed
from averos_ci.forge.actions_env import ActionsEnv, StepReport
from averos_ci.github.batch import run_batch
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


def run_fake_batch(tmp_path: Path, steps: list[str], raises: type[BaseException]) -> dict[str, str]:
    """A batch of ``len(steps)`` projects run by :func:`run_batch`, each writing its outputs
    as an apply does: ``ok`` applies 4 nodes, ``fail`` fails one of 2 and raises
    :class:`RunFailed`, ``interrupt`` is interrupted before it says anything. Returns the
    outputs the runner reads (the batch raised ``raises``)."""
    tmp_path.mkdir()
    out = tmp_path / "output"
    environ = {
        "GITHUB_OUTPUT": str(out),
        "GITHUB_EVENT_NAME": "push",
        "GITHUB_EVENT_PATH": str(tmp_path / "event.json"),
        "GITHUB_REPOSITORY": "o/r",
    }

    def run_one(k: int, config: str) -> str:
        step = steps[k - 1]
        if step == "interrupt":
            raise KeyboardInterrupt
        report = StepReport(ActionsEnv.from_environ(environ))
        if step == "ok":
            report.set(success=True, succeeded=4, failed=0, skipped=0)
        else:
            report.set(success=False, succeeded=1, failed=1, skipped=0)
        report.flush()
        if step == "fail":
            raise RunFailed(f"{config}: a node failed")
        return config

    configs = [f"p{k}/averos.config.json" for k in range(1, len(steps) + 1)]
    with pytest.raises(raises):
        run_batch(configs, run_one, environ=environ)
    return parse_outputs(out.read_text(encoding="utf-8"))


def test_a_failed_project_does_not_stop_the_batch_and_an_interrupted_one_is_not_applied(
    tmp_path: Path,
) -> None:
    # the third project ran after the second failed: its nodes are counted
    assert run_fake_batch(tmp_path / "a", ["ok", "fail", "ok"], RunFailed) == {
        "success": "false",
        "succeeded": "9",
        "failed": "1",
        "skipped": "0",
    }
    # the outputs are written on the way out of an interrupted job, and the project that
    # never said anything keeps the batch from reading as applied
    assert run_fake_batch(tmp_path / "b", ["ok", "interrupt"], KeyboardInterrupt) == {
        "success": "false",
        "succeeded": "4",
        "failed": "0",
        "skipped": "0",
    }
