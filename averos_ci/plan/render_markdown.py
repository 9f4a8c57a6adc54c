"""The plan as markdown (PR comment, job summary), under a size budget.

Changes are grouped by element inside one collapsible section per phase; long groups are cut
in the middle with counts. Every manifest string goes through the one escaper
(:func:`averos_ci._markdown.escape`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import groupby

from averos_ci._markdown import escape as md_escape
from averos_ci.plan import items
from averos_ci.plan.mermaid import flowchart
from averos_ci.plan.model import ExecutionPlan
from averos_ci.plan.not_applied import markdown_blocks
from averos_ci.plan.repairs import MAX_NODES

GITHUB_COMMENT_LIMIT = 65_536
_WORDS = {
    "+": "create",
    "~": "update",
    "-/+": "replace",
    ">": "rename",
    "!": "conflict",
    "-": "removal",
}


@dataclass(frozen=True)
class _Prepared:
    """An item's markdown, escaped once (the size search assembles it many times)."""

    line: str
    attrs: tuple[str, ...]


def _prepare(item: items.Item, indent: str) -> _Prepared:
    # "\\+" / "\\-": a bare mark after the bullet would open a nested list
    return _Prepared(
        f"{indent}- `{item.mark}` {md_escape(item.text)}",
        tuple(f"{indent}  - \\{a.mark} {md_escape(a.text)}" for a in item.attrs),
    )


@dataclass(frozen=True)
class _Group:
    title: list[str]
    head: _Prepared | None
    children: list[_Prepared]
    owner: str
    size: int
    marks: Counter[str]


def _prepare_group(group: items.Group) -> _Group:
    members = ([group.head] if group.head else []) + group.children
    return _Group(
        [] if group.head else [f"- **{md_escape(group.owner)}**"],
        _prepare(group.head, "") if group.head else None,
        [_prepare(c, "  ") for c in group.children],
        md_escape(group.owner),
        group.size,
        Counter(i.mark for i in members),
    )


def _head_tail(n: int, cap: int | None) -> tuple[int, int]:
    """How many blocks to keep at the head and at the tail (all: tail 0)."""
    if cap is None or n <= cap:
        return n, 0
    return cap - cap // 2, cap // 2


def _item(p: _Prepared, cap: int | None) -> list[str]:
    head, tail = _head_tail(len(p.attrs), cap)
    out = [p.line, *p.attrs[:head]]
    if head + tail < len(p.attrs):
        indent = p.line[: len(p.line) - len(p.line.lstrip())]
        out.append(f"{indent}  - … {len(p.attrs) - head - tail} more attribute(s) omitted")
        out += p.attrs[len(p.attrs) - tail :]
    return out


def _group(g: _Group, cap: int | None) -> list[str]:
    out = list(g.title) if g.head is None else _item(g.head, cap)
    head, tail = _head_tail(len(g.children), cap)
    for child in g.children[:head]:
        out += _item(child, cap)
    if head + tail < len(g.children):
        n = len(g.children) - head - tail
        out.append(f"  - … *{n} more change(s) in {g.owner} omitted here*")
        for child in g.children[len(g.children) - tail :]:
            out += _item(child, cap)
    return out


def _section(phase: str, groups: list[_Group], cap: int | None) -> list[str]:
    marks: Counter[str] = sum((g.marks for g in groups), Counter())
    summary = ", ".join(f"{marks[m]} {w}" for m, w in _WORDS.items() if marks[m])
    out = [f"<details><summary>{phase} ({summary})</summary>", ""]
    head, tail = _head_tail(len(groups), cap)
    for g in groups[:head]:
        out += _group(g, cap)
    if head + tail < len(groups):
        hidden = groups[head : len(groups) - tail]
        changes = sum(g.size for g in hidden)
        out.append(f"- … *{len(hidden)} more element(s) with {changes} change(s) omitted here*")
        for g in groups[len(groups) - tail :]:
            out += _group(g, cap)
    return [*out, "", "</details>", ""]


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
    sections: list[tuple[str, list[_Group]]],
    cap: int | None,
    title: str,
    extra: Sequence[str],
    graph: list[str],
) -> str:
    c = items.change_counts(plan)  # each change once, as shown
    out = [
        f"### {title}: {md_escape(plan.application_name)}",
        "",
        f"planHash `{plan.plan_hash}`",
        "",
        "| create | update | replace | rename | unchanged | conflicts | removals |",
        "|---:|---:|---:|---:|---:|---:|---:|",
        f"| {c.create} | {c.update} | {c.replace} | {c.rename} | {c.unchanged} | {c.conflicts} "
        f"| {c.delete} |",
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
    out += _destroyed(plan, cap)
    if not plan.has_changes and not plan.diff.conflicts:
        out += ["No changes: the application matches the manifest.", ""]
    for phase, groups in sections:
        out += _section(phase, groups, cap)
    out += graph
    return "\n".join(out)


def _destroyed(plan: ExecutionPlan, cap: int | None) -> list[str]:
    """Terraform's ``-`` destroy and ``-/+`` replace, with the reason: the element's code is
    deleted (or generated anew) by regenerating the new manifest and merging the difference."""
    replaced = [c for c in plan.diff.to_update if c.reason is not None]
    if not plan.diff.to_remove and not replaced:
        return []
    out = [
        "**Destroyed or replaced on apply** — the code of the new manifest's clean generation "
        "is merged into the workspace (see the code change):",
        "",
    ]
    for mark, changes, what in (
        ("-", plan.diff.to_remove, "removal"),
        ("-/+", replaced, "replacement"),
    ):
        out += [
            f"- `{mark}` {md_escape(x.id)}  ({md_escape(x.reason or 'destroy')})"
            for x in changes[:cap]
        ]
        if cap is not None and len(changes) > cap:
            out.append(f"- … {len(changes) - cap} more {what}(s) omitted")
    return [*out, ""]


def _code_patch(plan: ExecutionPlan, max_chars: int) -> list[str]:
    """The code change (regenerating adapters): each file's diff, grouped and folded."""
    if not plan.code_patch:
        return []
    from averos_ci.plan.patch_render import render_patch_markdown

    text = render_patch_markdown(plan.code_patch, budget=min(20_000, max_chars // 3))
    return [text] if text else ["**Code change:** no file changes."]


def render_markdown(
    plan: ExecutionPlan,
    *,
    max_chars: int = GITHUB_COMMENT_LIMIT - 2_000,
    title: str = "averos-ci plan",
    code_patch: bool = True,
) -> str:
    """Markdown under ``max_chars``: changes are cut from the middle of long groups if needed.

    ``code_patch=False``: without the code change (the PR comment shows it as a section of
    its own, :mod:`averos_ci.review.sections`).
    """
    sections = (
        *repair_markdown(plan),
        *markdown_blocks(plan, md_escape),
        *(_code_patch(plan, max_chars) if code_patch else ()),
    )
    grouped = [
        (phase.value, [_prepare_group(g) for g in gs])
        for phase, gs in groupby(items.groups(plan), lambda g: g.phase)
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


def repair_markdown(plan: ExecutionPlan) -> list[str]:
    """One block (for ``render_markdown``'s ``sections``), or none."""
    if not plan.repair:
        return []
    items = list(plan.repair.items())
    out = ["**Drift repair — generated files are missing; these nodes are re-run:**", ""]
    out += [
        f"- {md_escape(node)} restores " + ", ".join(f"`{md_escape(f)}`" for f in files[:10])
        for node, files in items[:MAX_NODES]
    ]
    if len(items) > MAX_NODES:
        out.append(f"- … and {len(items) - MAX_NODES} more node(s)")
    return ["\n".join(out)]
