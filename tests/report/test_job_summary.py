"""Job-summary markdown: counts, failures first with a log excerpt, node table, < 1 MiB."""

from __future__ import annotations

from pathlib import Path

import pytest

from averos_ci.execute import ExecutionFailure, NodeOutcome, NodeRecord, RunMode
from averos_ci.execute.summary import summarize
from averos_ci.report import append_step_summary, summary_markdown
from averos_ci.report.job_summary import MAX_BYTES


def failed(node_id: str, log: Path | None = None, message: str = "boom") -> NodeRecord:
    return NodeRecord(node_id=node_id, phase="entity", command="averos-entity",
                      outcome=NodeOutcome.FAILED, attempts=2, duration_ms=5,
                      failure=ExecutionFailure(code="SCHEMATIC_FAILED", message=message),
                      log_file=str(log) if log else None)  # fmt: skip


def ok(node_id: str) -> NodeRecord:
    return NodeRecord(node_id=node_id, phase="entity", command="averos-entity",
                      outcome=NodeOutcome.SUCCEEDED, attempts=1, duration_ms=1)  # fmt: skip


def test_counts_failures_first_with_excerpt_and_collapsible_table(tmp_path: Path) -> None:
    log = tmp_path / "x.log"
    log.write_text("".join(f"line {i}\n" for i in range(100)) + "```\nfinal error <b>\n")
    recs = [ok("entity:A"), failed("entity:B", log, message="bad | <script>")]
    md = summary_markdown(summarize(recs, mode=RunMode.STRICT, duration_ms=9), recs,
                          plan_hash="f" * 64, run_id="r1")  # fmt: skip
    assert md.startswith("## averos-ci run: ❌ failed")
    assert "| 2 | 1 | 1 | 0 | 0 |" in md
    assert md.index("### Failures (1)") < md.index("<details><summary>Nodes (2)</summary>")
    assert "final error <b>" in md and "line 99" in md and "line 10\n" not in md  # tail only
    assert "````text" in md  # fence longer than the backticks inside the log
    assert "bad \\| &lt;script&gt;" in md  # manifest/tool text is escaped (no HTML)
    assert "`ffffffffffff`" in md


def test_interrupted_run_says_how_to_resume() -> None:
    recs = [
        ok("a:1"),
        NodeRecord(
            node_id="a:2",
            phase="entity",
            command="c",
            outcome=NodeOutcome.CANCELLED,
            reason="interrupted by SIGINT",
        ),
    ]
    md = summary_markdown(summarize(recs, mode=RunMode.STRICT, duration_ms=1), recs,
                          interrupted="interrupted by SIGINT")  # fmt: skip
    assert "⏹️ interrupted" in md and "--resume" in md


@pytest.mark.parametrize("count", [100_000])
def test_huge_runs_stay_under_one_mib(count: int) -> None:
    recs = [failed(f"simple-field:Entity{i}:member{i}", message="x" * 200) for i in range(count)]
    md = summary_markdown(summarize(recs, mode=RunMode.RESILIENT, duration_ms=1), recs)
    assert len(md.encode("utf-8")) <= MAX_BYTES
    assert "more nodes omitted" in md and "more failures are listed" in md
    assert md.rstrip().endswith("</details>")


def test_step_summary_is_appended_when_set(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                           ) -> None:  # fmt: skip
    assert append_step_summary("x") is None
    target = tmp_path / "summary.md"
    target.write_text("before\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(target))
    assert append_step_summary("after\n") == target
    assert target.read_text() == "before\nafter\n"
