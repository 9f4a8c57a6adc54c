"""Plan renderers: terminal text, markdown (PR comments, job summaries), JSON."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping

from rich.text import Text

from averos_ci._markdown import escape as md_escape
from averos_ci.plan import not_applied
from averos_ci.plan.canonical import carried, compact
from averos_ci.plan.execution_diff import flatten, show
from averos_ci.plan.items import change_counts, groups, plain
from averos_ci.plan.model import ExecutionPlan
from averos_ci.plan.patch import file_counts
from averos_ci.plan.render_markdown import GITHUB_COMMENT_LIMIT, render_markdown
from averos_ci.plan.repairs import repair_text
from averos_ci.plan.sensitive import mask_wire

__all__ = [
    "GITHUB_COMMENT_LIMIT",
    "RENDERERS",
    "counts_line",
    "md_escape",
    "render_json",
    "render_markdown",
    "render_rich",
    "render_text",
]

_STYLES = {"+": "green", "~": "yellow", "!": "bold red", "-": "red", "-/+": "yellow", ">": "cyan"}


def counts_line(plan: ExecutionPlan) -> str:
    """``Plan: 1 to create, 0 to update, 1 to replace, 1 to rename, …`` — each change counted
    once, as it is shown; replacements and renames only when there are some (as Terraform
    names imports and moves only then)."""
    c = change_counts(plan)
    extra = "".join(
        f"{n} to {what}, " for n, what in ((c.replace, "replace"), (c.rename, "rename")) if n
    )
    return (
        f"Plan: {c.create} to create, {c.update} to update, {extra}{c.unchanged} unchanged, "
        f"{c.conflicts} conflict(s), {c.delete} to destroy."
    )


def _text_lines(plan: ExecutionPlan) -> list[tuple[str, str]]:
    """(style mark, line): Terraform's layout, an element and its attributes indented below."""
    lines = [("", f"averos-ci plan for {plain(plan.application_name)}")]
    lines += [("", f"planHash: {plan.plan_hash}")]
    # the execution settings are in the planHash: a reviewer sees what an approval covers
    execution = flatten(getattr(plan, "execution", None))  # unset for a bare manifest's plan
    if execution:
        lines.append(
            ("", "execution: " + ", ".join(f"{k}={plain(show(v))}" for k, v in execution.items()))
        )
    lines.append(("", ""))
    for group in groups(plan):
        if group.head is not None:
            lines.append((group.head.mark, f"{group.head.mark} {group.head.text}"))
            lines += [(a.mark, f"    {a.mark} {a.text}") for a in group.head.attrs]
        else:
            lines.append(("", f"  {plain(group.owner)}"))
        for child in group.children:
            lines.append((child.mark, f"    {child.mark} {child.text}"))
            lines += [(a.mark, f"        {a.mark} {a.text}") for a in child.attrs]
        lines.append(("", ""))
    lines += [("~", line) for line in repair_text(plan)]
    if plan.code_patch:
        from averos_ci.plan.patch_render import render_patch_text

        lines += [("", line) for line in render_patch_text(plan.code_patch).splitlines()]
    lines += [("!", line) for line in not_applied.text_lines(plan)]
    if not plan.has_changes and not plan.diff.conflicts:
        lines += [("", "No changes: the application matches the manifest."), ("", "")]
    lines.append(("", counts_line(plan)))
    if not plan.applicable:
        lines.append(("!", "This plan is NOT applicable: resolve the conflicts first."))
    return lines


def render_text(plan: ExecutionPlan) -> str:
    """Plain text (no colour): what ``averos-ci plan`` prints to a file or a pipe."""
    return "\n".join(line for _, line in _text_lines(plan)) + "\n"


def render_rich(plan: ExecutionPlan) -> Text:
    """The text rendering with create/update/remove colours, for a terminal (rich decides
    whether to emit them: TTY, ``NO_COLOR``, ``FORCE_COLOR``)."""
    out = Text()
    for mark, line in _text_lines(plan):
        out.append(line + "\n", style=_STYLES.get(mark, ""))
    return out


_BATCH = 256  # list items per piece
# beside the plan, outside its hash (plan.model.BESIDE_THE_PLAN): the changes counted as shown
SUMMARY_KEY = "summary"


def _pretty(
    value: object, depth: int, items: Mapping[int, list[str | None]], indent: str = ""
) -> Iterator[str]:
    """Indented down to ``depth`` levels, compact below: readable, and the C encoder stays fast
    (the stdlib's indenting encoder is pure Python and ~10x slower on large plans). In pieces:
    a large plan's text is tens of MB, and nested joins held several copies of it. ``items``:
    list items already encoded (the planner's, :mod:`averos_ci.plan.canonical`)."""
    inner = indent + "  "
    if depth == 0 or not isinstance(value, dict | list) or not value:
        yield compact(value)
    elif isinstance(value, list):
        yield "[\n"
        sep = ",\n" + inner
        texts = items.get(id(value)) or [None] * len(value)
        for i in range(0, len(value), _BATCH):  # one piece per batch: fewer writes
            batch = zip(texts[i : i + _BATCH], value[i : i + _BATCH], strict=True)
            yield (sep if i else inner) + sep.join([t or compact(v) for t, v in batch])
        yield "\n" + indent + "]"
    else:
        yield "{\n"
        for i, (k, v) in enumerate(sorted(value.items())):
            yield f"{',' + chr(10) if i else ''}{inner}{compact(k)}: "
            yield from _pretty(v, depth - 1, items, inner)
        yield "\n" + indent + "}"


def json_pieces(plan: ExecutionPlan) -> Iterator[str]:
    """:func:`render_json`'s text in pieces (written to a file one by one, never whole). The
    masked wire keeps the items that hold no sensitive value: their encodings are reused."""
    wire = plan.to_wire()
    masked, warned = mask_wire(wire), not_applied.wire(plan)
    out = {**masked, not_applied.WIRE_KEY: warned} if warned else masked
    summary: dict[str, object] = {**change_counts(plan).to_wire()}
    if plan.code_patch:
        summary["files"] = file_counts(plan.code_patch)
    out = {**out, SUMMARY_KEY: summary}
    yield from _pretty(out, 3, carried(plan.item_json(), wire, masked))
    yield "\n"


def render_json(plan: ExecutionPlan) -> str:
    """Deterministic JSON: sorted keys; one node (and one diff entry) per line. Sensitive
    values are masked (averos_ci.plan.sensitive); the planHash is the real plan's."""
    return "".join(json_pieces(plan))


RENDERERS: dict[str, Callable[[ExecutionPlan], str]] = {
    "text": render_text,
    "markdown": render_markdown,
    "json": render_json,
}
