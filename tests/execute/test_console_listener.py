"""Console progress: quiet by default, plain lines, ::group:: under GitHub Actions, rich on TTY."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from averos_ci.execute import RunMode
from averos_ci.execute.console import ConsoleListener
from tests.execute.engine_plans import RunFn, build_plan

PLAN = {"a": [], "b": ["a"], "c": ["b"]}


def run_with(run_plan: RunFn, tmp_path: Path, **console: object) -> str:
    out = io.StringIO()
    listener = ConsoleListener(total=3, logs_dir=tmp_path / "logs", stream=out, **console)  # type: ignore[arg-type]
    run_plan(build_plan(PLAN), mode=RunMode.RESILIENT, listeners=[listener],
             adapter_options={"failNodes": ["b"], "latencyMs": 1})  # fmt: skip
    return out.getvalue()


def test_quiet_by_default_but_failures_and_summary_show(run_plan: RunFn, tmp_path: Path) -> None:
    text = run_with(run_plan, tmp_path, verbose=False, github_actions=False, tty=False)
    assert "FAILED b: simulated failure of b" in text
    assert "run failed (resilient): 3 nodes, 1 succeeded, 1 failed, 1 skipped" in text
    assert "ok a" not in text


def test_verbose_plain_lines(run_plan: RunFn, tmp_path: Path) -> None:
    text = run_with(run_plan, tmp_path, verbose=True, github_actions=False, tty=False)
    assert "ok a (" in text and "skipped c: dependency b failed" in text
    assert "::group::" not in text


def test_github_actions_groups_carry_the_node_log(run_plan: RunFn, tmp_path: Path) -> None:
    text = run_with(run_plan, tmp_path, verbose=True, github_actions=True, tty=False)
    assert "::group::[1/3] ok a" in text and "::endgroup::" in text
    assert "mock: ran averos-entity for a" in text  # the node's log inside its group
    assert "::error title=averos-ci b::simulated failure of b" in text


@pytest.mark.parametrize("verbose", [True])
def test_rich_progress_on_a_tty(run_plan: RunFn, tmp_path: Path, verbose: bool) -> None:
    text = run_with(run_plan, tmp_path, verbose=verbose, github_actions=False, tty=True)
    assert "FAILED b" in text and "run failed" in text


def test_a_long_node_prints_a_heartbeat_with_its_last_log_line(
    run_plan: RunFn, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not a TTY (CI): a node running longer than AVEROS_CI_HEARTBEAT_S gets a line saying
    how long it has run and what its log says last; a quick node gets none."""
    monkeypatch.setenv("AVEROS_CI_HEARTBEAT_S", "0.05")
    out = io.StringIO()
    listener = ConsoleListener(
        total=1, logs_dir=tmp_path / "logs", stream=out, github_actions=False, tty=False
    )
    # attempt 1 fails after 1 s (the log then has lines), attempt 2 runs 1 s more
    options = {"latencyMs": 1000, "failNodes": ["a"], "failAttempts": 1}
    run_plan(build_plan({"a": []}), listeners=[listener], adapter_options=options, max_attempts=2)
    beats = [line for line in out.getvalue().splitlines() if " running " in line]
    assert beats and all(re.match(r"\[0/1\] running a \d+ s", b) for b in beats), beats
    assert any(re.search(r" s: === a: attempt 2/2 \(run ", b) for b in beats), beats
    assert out.getvalue().rstrip().splitlines()[-1].startswith("run succeeded")
    assert not listener.running  # the heartbeat thread ends with the run
    quick = io.StringIO()
    again = ConsoleListener(
        total=1, logs_dir=tmp_path / "logs2", stream=quick, github_actions=False, tty=False,
        heartbeat_s=30,
    )  # fmt: skip
    run_plan(build_plan({"a": []}), listeners=[again], adapter_options={"latencyMs": 1})
    assert " running " not in quick.getvalue()


def test_the_heartbeat_names_the_command_the_last_line_comes_from(tmp_path: Path) -> None:
    from averos_ci.execute.heartbeat import last_line

    log = tmp_path / "node.log"
    log.write_text(
        "$ /usr/bin/npx -y @angular/cli@14.2.13 new ToDoApp --directory=ws --defaults\n"
        "CREATE ws/src/app/app.component.ts (212 bytes)\n\x1b[32m\n",
        encoding="utf-8",
    )
    assert (
        last_line(log)
        == "npx @angular/cli@14.2.13 new: CREATE ws/src/app/app.component.ts (212 bytes)"
    )
    log.write_text("x" * 300 + "\n", encoding="utf-8")
    assert len(last_line(log)) == 100
    assert last_line(tmp_path / "missing.log") == ""


def test_the_heartbeat_never_shows_a_known_secret(tmp_path: Path) -> None:
    """The node log is scrubbed when the node ends; the heartbeat reads it before that."""
    from averos_ci import _secrets
    from averos_ci.execute.heartbeat import last_line

    _secrets.register("s3cr3t-heartbeat-value")
    log = tmp_path / "node.log"
    log.write_text("npm http fetch https://user:s3cr3t-heartbeat-value@registry\n")
    assert "s3cr3t" not in last_line(log) and _secrets.MASK in last_line(log)
