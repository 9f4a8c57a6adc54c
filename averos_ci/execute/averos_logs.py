"""Averos's own log files in ``logsDir``, beside averos-ci's, for tooling built on Averos.

Shapes as Averos's CLI writes them (``@averos/cli``: ``averos plan --json``, its
``NodeLogger`` and summary formatter):

* ``execution-plan.json`` — the plan as Averos's ``ExecutionPlan``:
  ``{nodes: [ExecutionNode], byPhase: {phase: [ExecutionNode]}, warnings: [{type, message}]}``
  with ``ExecutionNode = {id, phase, command, runner, action, args, dependsOn}``;
* ``execution-log.jsonl`` — one record per finished node (succeeded, failed — once per
  failed attempt — or skipped): ``{nodeId, command, startedAt, finishedAt, durationMs,
  success, exitCode?, error?}``; started afresh by each run, as Averos does;
* ``summary.txt`` — the human-readable summary (counts, one line per node, failures).

Whole files are written atomically; the JSON-lines log appends each record with one
``write`` so a reader never sees half a record.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from averos_ci._fs import atomic_write_text
from averos_ci.execute.events import (
    EventType,
    NodeFailed,
    NodeSkipped,
    NodeStarted,
    NodeSucceeded,
    RunnerEvent,
)
from averos_ci.execute.summary import NodeOutcome, NodeRecord, RunnerSummary
from averos_ci.plan.model import ExecutionPlan, PlanNode
from averos_ci.plan.sensitive import mask_wire

PLAN_FILE_NAME = "execution-plan.json"
LOG_FILE_NAME = "execution-log.jsonl"
SUMMARY_TXT_NAME = "summary.txt"
AVEROS_RUNNER = "ng"  # Averos's runner of schematic commands


def execution_node(node: PlanNode) -> dict[str, Any]:
    return {
        "id": node.id,
        "phase": node.phase.value,
        "command": node.command,
        "runner": AVEROS_RUNNER,
        "action": node.action.value,
        "args": node.args,
        "dependsOn": list(node.depends_on),
    }


def execution_plan(plan: ExecutionPlan, *, warnings: Iterable[str] = ()) -> dict[str, Any]:
    # a log file: sensitive args masked (the node-module adapter sends execution_node unmasked)
    raw = {"nodes": [execution_node(n) for n in plan.nodes], "execution": plan.execution}
    nodes: list[dict[str, Any]] = mask_wire(raw)["nodes"]
    by_phase: dict[str, list[dict[str, Any]]] = {}
    for wire in nodes:
        by_phase.setdefault(wire["phase"], []).append(wire)
    found = [{"type": "VALIDATION", "message": w} for w in warnings]
    found += [
        {"type": "REMOVAL", "message": f"{c.id} was removed from the manifest: not executed"}
        for c in plan.diff.to_remove
    ]
    found += [
        {"type": "CONFLICT", "message": f"{c.id}: {c.reason or 'cannot be updated'}"}
        for c in plan.diff.conflicts
    ]
    return {"nodes": nodes, "byPhase": by_phase, "warnings": found}


def write_execution_plan(logs_dir: Path, plan: ExecutionPlan, *, warnings: Sequence[str]) -> None:
    text = json.dumps(execution_plan(plan, warnings=warnings), indent=2, ensure_ascii=False)
    atomic_write_text(logs_dir / PLAN_FILE_NAME, text + "\n")


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class AverosExecutionLog:
    """RunnerEventListener writing ``execution-log.jsonl`` record by record."""

    def __init__(self, logs_dir: Path, plan: ExecutionPlan) -> None:
        self.path = logs_dir / LOG_FILE_NAME
        self._commands = {n.id: n.command for n in plan.nodes}
        self._started: dict[str, str] = {}
        atomic_write_text(self.path, "")  # a fresh log per run, as Averos's NodeLogger

    def on_event(self, event: RunnerEvent) -> None:
        kind = event.type
        if isinstance(event, NodeStarted):
            self._started[event.node_id] = event.timestamp
            return
        if not isinstance(event, NodeSucceeded | NodeFailed | NodeSkipped):
            return
        node_id = event.node_id
        record: dict[str, Any] = {
            "nodeId": node_id,
            "command": self._commands.get(node_id, "")
            if kind is not EventType.NODE_SKIPPED
            else "",
            "startedAt": self._started.get(node_id, event.timestamp),
            "finishedAt": event.timestamp,
        }
        if isinstance(event, NodeSucceeded):
            record.update(durationMs=event.duration_ms, success=True)
        elif isinstance(event, NodeFailed):
            record.update(durationMs=event.duration_ms, success=False)
            exit_code = _exit_code(event.failure.details)
            if exit_code is not None:
                record["exitCode"] = exit_code
            record["error"] = event.failure.message
        else:
            record.update(durationMs=0, success=True)  # Averos counts a skip as done
        line = json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n"
        fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        try:
            os.write(fd, line.encode("utf-8"))
        finally:
            os.close(fd)


def _exit_code(details: str | None) -> int | None:
    for line in (details or "").splitlines():
        for prefix in ("exit code ", "exitCode: "):
            if line.startswith(prefix) and line[len(prefix) :].strip().lstrip("-").isdigit():
                return int(line[len(prefix) :].strip())
    return None


def summary_text(summary: RunnerSummary, records: Sequence[NodeRecord]) -> str:
    lines = [
        "Averos Execution Summary",
        f"Generated : {_now()}",
        "",
        f"Total     : {summary.total}",
        f"Succeeded : {summary.succeeded}",
        f"Failed    : {summary.failed}",
        f"Duration  : {summary.duration_ms}ms",
        f"Skipped   : {summary.skipped}",
        f"Cancelled : {summary.cancelled}",
        f"Mode      : {summary.mode.value}",
        f"Status    : {'SUCCESS' if summary.success else 'FAILED'}",
        "",
    ]
    icons = {
        NodeOutcome.SUCCEEDED: "✓",
        NodeOutcome.FAILED: "✗",
        NodeOutcome.SKIPPED: "⊘",
        NodeOutcome.CANCELLED: "⊘",
    }
    for r in records:
        duration = "skipped" if r.outcome is NodeOutcome.SKIPPED else f"{r.duration_ms}ms"
        if r.outcome is NodeOutcome.CANCELLED:
            duration = "cancelled"
        lines.append(f"  {icons[r.outcome]} {r.node_id:<60} {duration:>8}")
    if summary.failures:
        lines += ["", "── Failures ────────────────────────────────────────"]
        for f in summary.failures:
            lines.append(f"  ✗ {f.node_id}")
            lines.append(f"    → {f.failure.message}")
    if summary.not_applied:
        lines += ["", "── Not applied ─────────────────────────────────────"]
        lines += [f"  ! {n.node_id}: {n.setting}: {n.reason}" for n in summary.not_applied]
    return "\n".join(lines) + "\n"


def write_summary_text(
    logs_dir: Path, summary: RunnerSummary, records: Sequence[NodeRecord]
) -> None:
    atomic_write_text(logs_dir / SUMMARY_TXT_NAME, summary_text(summary, records))
