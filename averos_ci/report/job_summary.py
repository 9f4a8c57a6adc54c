"""Job-summary markdown: counts, failures first (with a log excerpt), a collapsible node table.

Always under 1 MiB (GitHub's step-summary limit): excerpts and the node table are cut with a
note saying what was left out. Node ids and messages come from the manifest and tools, so
they are escaped.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from averos_ci._fs import atomic_write_text
from averos_ci._markdown import code as inline
from averos_ci._markdown import code_block, escape
from averos_ci.execute.console import code_change_text
from averos_ci.execute.logs import tail
from averos_ci.execute.summary import NodeOutcome, NodeRecord, RunnerSummary

MAX_BYTES = 1024 * 1024
_BUDGET = MAX_BYTES - 16 * 1024  # head-room for the closing lines and the omission note
MAX_DETAILED_FAILURES = 50
_ICON = {
    NodeOutcome.SUCCEEDED: "✅",
    NodeOutcome.FAILED: "❌",
    NodeOutcome.SKIPPED: "⏭️",
    NodeOutcome.CANCELLED: "⏹️",
}


def summary_markdown(
    summary: RunnerSummary,
    records: Sequence[NodeRecord],
    *,
    title: str = "averos-ci run",
    plan_hash: str | None = None,
    run_id: str | None = None,
    interrupted: str | None = None,
) -> str:
    status = "✅ succeeded" if summary.success else "⏹️ interrupted" if interrupted else "❌ failed"
    meta = [f"mode `{summary.mode.value}`", f"{summary.duration_ms} ms"]
    if plan_hash:
        meta.insert(0, f"plan `{plan_hash[:12]}`")
    if run_id:
        meta.append(f"run `{run_id}`")
    out = [f"## {escape(title)}: {status}", "", " · ".join(meta), ""]
    if interrupted:
        out += [f"> {escape(interrupted)} — progress is saved; run again with `--resume`.", ""]
    out += [
        "| total | succeeded | failed | skipped | cancelled |",
        "|---:|---:|---:|---:|---:|",
        f"| {summary.total} | {summary.succeeded} | {summary.failed} | {summary.skipped} "
        f"| {summary.cancelled} |",
        "",
    ]
    change = summary.code_change
    if change is not None:  # what a regenerating run wrote into the workspace
        out += [
            f"**Code change written:** {code_change_text(change)} "
            f"in {change.duration_ms} ms (the `file:` rows below)",
            "",
        ]
    failed = [r for r in records if r.outcome is NodeOutcome.FAILED]
    if failed:
        out += [f"### Failures ({len(failed)})", ""]
        for r in failed[:MAX_DETAILED_FAILURES]:
            out += _failure(r)
        if len(failed) > MAX_DETAILED_FAILURES:
            out += [
                f"_{len(failed) - MAX_DETAILED_FAILURES} more failures are listed in the "
                "node table below._",
                "",
            ]
    out += _node_table(records, budget=_BUDGET - _size(out))
    text = "\n".join(out) + "\n"
    assert len(text.encode("utf-8")) <= MAX_BYTES
    return text


def _failure(r: NodeRecord) -> list[str]:
    f = r.failure
    code = f.code if f else "FAILED"
    lines = [f"#### ❌ {inline(r.node_id)} ({escape(r.phase)}) — {escape(code)}", ""]
    if f is not None:
        lines += [escape(f.message), ""]
    excerpt = tail(Path(r.log_file), max_lines=40, max_bytes=4096) if r.log_file else ""
    if f is not None and f.details and not excerpt:
        excerpt = f.details[-4096:]
    if excerpt:
        lines += [
            "<details><summary>log excerpt</summary>",
            "",
            code_block(excerpt),
            "",
            "</details>",
            "",
        ]
    return lines


def _node_table(records: Sequence[NodeRecord], *, budget: int) -> list[str]:
    head = [
        f"<details><summary>Nodes ({len(records)})</summary>",
        "",
        "| node | phase | result | attempts | time | note |",
        "|---|---|---|---:|---:|---|",
    ]
    used = _size(head)
    rows: list[str] = []
    for i, r in enumerate(records):
        note = r.reason or (r.failure.message if r.failure else "")
        if r.resumed:
            note = "done in an earlier run (resumed)"
        row = (
            f"| {escape(r.node_id)} | {escape(r.phase)} | {_ICON[r.outcome]} "
            f"{r.outcome.value} | {r.attempts} | {r.duration_ms} ms | {escape(note[:300])} |"
        )
        used += len(row.encode("utf-8")) + 1
        if used > budget:
            rows.append(
                f"\n_{len(records) - i} more nodes omitted to stay under 1 MiB; "
                "see summary.json and events.jsonl._"
            )
            break
        rows.append(row)
    return [*head, *rows, "", "</details>"]


def _size(lines: list[str]) -> int:
    return sum(len(line.encode("utf-8")) + 1 for line in lines)


def write_markdown(path: Path, text: str) -> None:
    atomic_write_text(path, text)


def append_step_summary(text: str) -> Path | None:
    """Append to ``$GITHUB_STEP_SUMMARY`` when set (GitHub Actions); return its path."""
    target = os.environ.get("GITHUB_STEP_SUMMARY")
    if not target:
        return None
    path = Path(target)
    with path.open("a", encoding="utf-8") as f:
        f.write(text)
    return path
