"""Plan renderers: terminal text, markdown (PR comments, job summaries), JSON."""

from __future__ import annotations

import json
from collections.abc import Callable
from itertools import groupby

from averos_ci.plan.model import Action, ExecutionPlan, Phase, PlanNode

GITHUB_COMMENT_LIMIT = 65_536
_MARK = {Action.CREATE: "+", Action.UPDATE: "~", Action.SKIP: " "}
_MD_SPECIAL = set("\\`*_[]|~")


def md_escape(text: str) -> str:
    """Escape a manifest string for markdown: no markup, no HTML, no mentions, one line."""
    out = []
    for ch in text.replace("\r", " ").replace("\n", " "):
        if ch in _MD_SPECIAL:
            out.append("\\" + ch)
        elif ch == "<":
            out.append("&lt;")
        elif ch == ">":
            out.append("&gt;")
        elif ch == "&":
            out.append("&amp;")
        elif ch == "@":
            out.append("@\u200b")
        else:
            out.append(ch)
    return "".join(out)


def counts_line(plan: ExecutionPlan) -> str:
    c = plan.counts
    return (
        f"Plan: {c.create} to create, {c.update} to update, {c.skip} unchanged, "
        f"{c.conflicts} conflict(s), {c.remove} removal(s) reported."
    )


def _by_phase(nodes: tuple[PlanNode, ...]) -> list[tuple[Phase, list[PlanNode]]]:
    ordered = sorted(nodes, key=lambda n: n.phase.rank)  # stable: keeps plan order per phase
    return [(phase, list(group)) for phase, group in groupby(ordered, key=lambda n: n.phase)]


def render_text(plan: ExecutionPlan, *, show_unchanged: bool = False) -> str:
    lines = [f"averos-ci plan for {plan.application_name}", f"planHash: {plan.plan_hash}", ""]
    conflicts = {c.id: c for c in plan.diff.conflicts}
    for phase, nodes in _by_phase(plan.nodes):
        shown = [
            n for n in nodes if show_unchanged or n.action is not Action.SKIP or n.id in conflicts
        ]
        if not shown:
            continue
        lines.append(f"{phase.value}:")
        for n in shown:
            if n.id in conflicts:
                lines.append(f"  ! {n.id}  (conflict: {conflicts[n.id].reason})")
            else:
                lines.append(f"  {_MARK[n.action]} {n.id}  [{n.command}]")
    if plan.diff.to_remove:
        lines.append("removals (reported, never executed):")
        lines.extend(f"  - {c.id}" for c in plan.diff.to_remove)
    lines += ["", counts_line(plan)]
    if not plan.applicable:
        lines.append("This plan is NOT applicable: resolve the conflicts first.")
    return "\n".join(lines) + "\n"


def _node_rows(nodes: list[PlanNode], cap: int | None, conflicts: set[str]) -> list[str]:
    def row(n: PlanNode) -> str:
        action = "conflict" if n.id in conflicts else n.action.value
        return f"| {action} | {md_escape(n.id)} | {md_escape(n.command)} |"

    if cap is None or len(nodes) <= cap:
        return [row(n) for n in nodes]
    head, tail = cap - cap // 2, cap // 2
    omitted = len(nodes) - head - tail
    return (
        [row(n) for n in nodes[:head]]
        + [f"| … | *{omitted} node(s) omitted here to fit the size limit* | |"]
        + [row(n) for n in nodes[len(nodes) - tail :] if tail]
    )


def _markdown(plan: ExecutionPlan, cap: int | None, title: str) -> str:
    c = plan.counts
    conflict_ids = {x.id for x in plan.diff.conflicts}
    out = [
        f"### {title}: {md_escape(plan.application_name)}",
        "",
        f"planHash `{plan.plan_hash}`",
        "",
        "| create | update | unchanged | conflicts | removals |",
        "|---:|---:|---:|---:|---:|",
        f"| {c.create} | {c.update} | {c.skip} | {c.conflicts} | {c.remove} |",
        "",
    ]
    if plan.diff.conflicts:
        out += ["**Conflicts — this plan is not applicable until they are resolved:**", ""]
        out += [
            f"- {md_escape(x.id)}: {md_escape(x.reason or '')}"
            for x in plan.diff.conflicts[: cap or None]
        ]
        if cap and len(plan.diff.conflicts) > cap:
            out.append(f"- … {len(plan.diff.conflicts) - cap} more conflict(s) omitted")
        out.append("")
    if plan.diff.to_remove:
        out += ["**Removals — reported, never executed:**", ""]
        out += [f"- {md_escape(x.id)}" for x in plan.diff.to_remove[:cap]]
        if cap is not None and len(plan.diff.to_remove) > cap:
            out.append(f"- … {len(plan.diff.to_remove) - cap} more removal(s) omitted")
        out.append("")
    if not plan.has_changes and not plan.diff.conflicts:
        out += ["No changes: the application matches the manifest.", ""]
    for phase, nodes in _by_phase(plan.nodes):
        changed = [n for n in nodes if n.action is not Action.SKIP or n.id in conflict_ids]
        if not changed:
            continue
        summary = ", ".join(
            f"{sum(1 for n in changed if n.action is a)} {a.value}"
            for a in (Action.CREATE, Action.UPDATE)
            if any(n.action is a for n in changed)
        )
        if conflict_ids & {n.id for n in changed}:
            summary += (", " if summary else "") + "conflicts"
        out += [
            f"<details><summary>{phase.value} ({summary})</summary>",
            "",
            "| action | node | command |",
            "|---|---|---|",
            *_node_rows(changed, cap, conflict_ids),
            "",
            "</details>",
            "",
        ]
    return "\n".join(out)


def render_markdown(
    plan: ExecutionPlan,
    *,
    max_chars: int = GITHUB_COMMENT_LIMIT - 2_000,
    title: str = "averos-ci plan",
) -> str:
    """Markdown under ``max_chars``: rows are cut from the middle of each phase if needed."""
    text = _markdown(plan, None, title)
    if len(text) <= max_chars:
        return text
    note = (
        "\n> The full plan is too large for one comment: rows were omitted above. "
        "See the job summary or `averos-ci plan --format json`.\n"
    )
    budget = max_chars - len(note)
    best = _markdown(plan, 0, title)
    if len(best) > budget:  # not even the phase headers fit: counts only
        best = "\n".join(best.splitlines()[:8]) + "\n"
        return best[:budget] + note if len(best) > budget else best + note
    low, high = 1, max(len(plan.nodes), len(plan.diff.to_remove), len(plan.diff.conflicts), 1)
    while low <= high:  # the largest per-phase row cap that fits
        mid = (low + high) // 2
        candidate = _markdown(plan, mid, title)
        if len(candidate) <= budget:
            best, low = candidate, mid + 1
        else:
            high = mid - 1
    return best + note


_ENCODER = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)
_compact = _ENCODER.encode


def _pretty(value: object, depth: int, indent: str = "") -> str:
    """Indented down to ``depth`` levels, compact below: readable, and the C encoder stays fast
    (the stdlib's indenting encoder is pure Python and ~10x slower on large plans)."""
    inner = indent + "  "
    if depth == 0 or not isinstance(value, dict | list) or not value:
        return _compact(value)
    if isinstance(value, list):
        items = [inner + _compact(v) for v in value]
        return "[\n" + ",\n".join(items) + "\n" + indent + "]"
    items = [
        f"{inner}{_compact(k)}: {_pretty(v, depth - 1, inner)}" for k, v in sorted(value.items())
    ]
    return "{\n" + ",\n".join(items) + "\n" + indent + "}"


def render_json(plan: ExecutionPlan) -> str:
    """Deterministic JSON: sorted keys; one node (and one diff entry) per line."""
    return _pretty(plan.to_wire(), 3) + "\n"


RENDERERS: dict[str, Callable[[ExecutionPlan], str]] = {
    "text": render_text,
    "markdown": render_markdown,
    "json": render_json,
}
