"""Markdown for comments and job summaries: the one escaper (:mod:`averos_ci._markdown`,
re-exported for the flows) and the plan's last-resort rendering.

Every string that comes from a manifest or a payload goes through :func:`escape` so that it
cannot open a link, a mention, an HTML element or break out of a table cell.
"""

from __future__ import annotations

from averos_ci._markdown import code, escape
from averos_ci.plan.model import ExecutionPlan

__all__ = ["code", "escape", "fallback_markdown"]


def fallback_markdown(plan: ExecutionPlan, *, max_chars: int) -> str:
    """A minimal renderer: one line per executable node, head and tail kept when too long."""
    nodes = plan.executable_nodes()
    lines = [f"- {n.action.value} {code(n.id) if len(n.id) < 200 else escape(n.id)}" for n in nodes]
    if not lines:
        lines = ["_No changes._"]
    for change in plan.diff.conflicts:
        lines.append(f"- conflict {escape(change.id)}: {escape(change.reason or 'cannot update')}")
    for change in plan.diff.to_remove:
        lines.append(f"- remove (reported, not executed) {escape(change.id)}")
    text = "\n".join(lines)
    if len(text) <= max_chars:
        return text
    budget = max(0, max_chars - 120)
    head: list[str] = []
    tail: list[str] = []
    used = 0
    i, j = 0, len(lines) - 1
    while i <= j:
        line = lines[i]
        if used + len(line) + 1 > budget // 2 and head:
            break
        head.append(line)
        used += len(line) + 1
        i += 1
    while j >= i:
        line = lines[j]
        if used + len(line) + 1 > budget:
            break
        tail.insert(0, line)
        used += len(line) + 1
        j -= 1
    omitted = j - i + 1
    note = f"- … {omitted} more lines omitted (see the job summary / `averos-ci plan`) …"
    return "\n".join([*head, note, *tail])[:max_chars]
