"""Markdown for comments and job summaries: escaping, and the plan body.

Every string that comes from a manifest or a payload goes through :func:`escape` so that it
cannot open a link, a mention, an HTML element or break out of a table cell.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from averos_ci.plan.model import ExecutionPlan

_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|~>])")


def escape(text: str) -> str:
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    text = _SPECIAL.sub(r"\\\1", text)
    text = text.replace("@", "@\u200b")  # no mentions, no team pings
    return " ".join(text.split())  # one line: no headings or tables injected through newlines


def code(text: str) -> str:
    """Inline code for hashes and shas (those are hex; anything else is escaped)."""
    if re.fullmatch(r"[0-9A-Za-z_.:/-]*", text):
        return f"`{text}`"
    return escape(text)


def plan_markdown(plan: ExecutionPlan, *, max_chars: int, sections: Sequence[str] = ()) -> str:
    """The plan as markdown under ``max_chars`` (the shared renderer, with a last guard);
    ``sections`` are extra, already escaped blocks shown after the counts."""
    from averos_ci.plan.render import render_markdown

    text = render_markdown(plan, max_chars=max_chars, title="Plan", sections=sections)
    balanced = text.count("<details>") == text.count("</details>")
    if len(text) <= max_chars and balanced:
        return text
    return fallback_markdown(plan, max_chars=max_chars)  # never break the comment's layout


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
