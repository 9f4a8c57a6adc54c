"""The plan as markdown (PR comment, job summary), under a size budget.

Changes are grouped by element inside one collapsible section per phase; long groups are cut
in the middle with counts. Every manifest string goes through :func:`md_escape`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import groupby

from averos_ci.plan import review
from averos_ci.plan.mermaid import flowchart
from averos_ci.plan.model import ExecutionPlan

GITHUB_COMMENT_LIMIT = 65_536
_MD_SPECIAL = set("\\`*_[]|~")
_WORDS = {"+": "create", "~": "update", "!": "conflict", "-": "removal"}


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


def _cut(lines: list[list[str]], cap: int | None, omitted: str) -> list[str]:
    """Flatten blocks of lines, keeping the head and the tail blocks when over ``cap``."""
    if cap is None or len(lines) <= cap:
        return [line for block in lines for line in block]
    head, tail = cap - cap // 2, cap // 2
    kept = lines[:head] + lines[len(lines) - tail :]
    missing = lines[head : len(lines) - tail]
    note = omitted.format(n=len(missing))
    return [
        *(line for block in kept[:head] for line in block),
        note,
        *(line for block in kept[head:] for line in block),
    ]


def _item(item: review.Item, indent: str, cap: int | None) -> list[str]:
    out = [f"{indent}- `{item.mark}` {md_escape(item.text)}"]
    # "\+" / "\-": a bare mark after the bullet would open a nested list
    attrs = [[f"{indent}  - \\{a.mark} {md_escape(a.text)}"] for a in item.attrs]
    out += _cut(attrs, cap, f"{indent}  - … {{n}} more attribute(s) omitted")
    return out


def _group(group: review.Group, cap: int | None) -> list[str]:
    if group.head is not None:
        out = _item(group.head, "", cap)
    else:
        out = [f"- **{md_escape(group.owner)}**"]
    children = [_item(c, "  ", cap) for c in group.children]
    note = f"  - … *{{n}} more change(s) in {md_escape(group.owner)} omitted here*"
    return out + _cut(children, cap, note)


def _section(phase: str, groups: list[review.Group], cap: int | None) -> list[str]:
    marks = Counter(i.mark for g in groups for i in ([g.head] if g.head else []) + list(g.children))
    summary = ", ".join(f"{marks[m]} {w}" for m, w in _WORDS.items() if marks[m])
    blocks = [_group(g, cap) for g in groups]
    sizes = [g.size for g in groups]
    if cap is not None and len(blocks) > cap:
        head, tail = cap - cap // 2, cap // 2
        hidden = sum(sizes[head : len(sizes) - tail])
        note = f"- … *{{n}} more element(s) with {hidden} change(s) omitted here*"
    else:
        note = ""
    return [
        f"<details><summary>{phase} ({summary})</summary>",
        "",
        *_cut(blocks, cap, note),
        "",
        "</details>",
        "",
    ]


def _graph(plan: ExecutionPlan) -> list[str]:
    chart = flowchart(plan)
    if chart is None:
        return []
    summary = f"Plan graph ({chart.shown} node(s)"
    summary += f"; {chart.left_out} more left out of the picture)" if chart.left_out else ")"
    return [
        f"<details><summary>{summary}</summary>",
        "",
        "```mermaid",
        chart.text.rstrip("\n"),
        "```",
        "",
        "</details>",
        "",
    ]


def _markdown(
    plan: ExecutionPlan,
    sections: list[tuple[str, list[review.Group]]],
    cap: int | None,
    title: str,
    extra: Sequence[str],
    graph: list[str],
) -> str:
    c = plan.counts
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
    for block in extra:
        out += [block.rstrip("\n"), ""]
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
    for phase, groups in sections:
        out += _section(phase, groups, cap)
    out += graph
    return "\n".join(out)


def render_markdown(
    plan: ExecutionPlan,
    *,
    max_chars: int = GITHUB_COMMENT_LIMIT - 2_000,
    title: str = "averos-ci plan",
    sections: Sequence[str] = (),
) -> str:
    """Markdown under ``max_chars``: changes are cut from the middle of long groups if needed.

    ``sections`` are extra markdown blocks (already escaped) shown after the counts.
    """
    grouped = [
        (phase.value, list(gs)) for phase, gs in groupby(review.groups(plan), lambda g: g.phase)
    ]
    graph = _graph(plan)
    text = _markdown(plan, grouped, None, title, sections, graph)
    if len(text) <= max_chars:
        return text
    note = (
        "\n> The full plan is too large for one comment: changes were omitted above. "
        "See the job summary or `averos-ci plan --format json`.\n"
    )
    budget = max_chars - len(note)
    best = _markdown(plan, grouped, 0, title, sections, [])
    if len(best) > budget:  # not even the phase headers fit: counts only
        best = "\n".join(best.splitlines()[:8]) + "\n"
        return best[:budget] + note if len(best) > budget else best + note
    with_graph = _markdown(plan, grouped, 0, title, sections, graph)
    if len(with_graph) <= budget:
        best = with_graph
    else:
        graph = []  # the changes matter more than the picture
    low, high = 1, max(len(plan.nodes), len(plan.diff.to_remove), len(plan.diff.conflicts), 1)
    while low <= high:  # the largest cap that fits
        mid = (low + high) // 2
        candidate = _markdown(plan, grouped, mid, title, sections, graph)
        if len(candidate) <= budget:
            best, low = candidate, mid + 1
        else:
            high = mid - 1
    return best + note
