"""The plan comment as a list of sections, in a fixed order: status, policy, drift, execution
diff, plan, code change, how to approve. One builder (:func:`render_comment`) serves every flow
that posts a plan (the plan flow, ``complete``, the catch-up's recomputed plan) and the job
summary. A new section is one renderer added to :data:`SECTIONS`.

Each renderer gets the comment's parts and a budget of characters and returns its markdown
(empty: nothing to show) within that budget. Small sections are rendered first with what is
left; the growing ones (the plan, the code change) then share the rest. A plan whose markdown
cannot fit falls back to one line per node (:func:`fallback_markdown`): the layout never breaks.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from averos_ci._markdown import code, escape
from averos_ci.forge.settings import GitHubSettings
from averos_ci.plan.execution_diff import MISSING, execution_changes, flatten, show
from averos_ci.plan.items import change_counts
from averos_ci.plan.model import ExecutionPlan
from averos_ci.plan.patch_render import render_patch_markdown
from averos_ci.plan.render_markdown import render_markdown
from averos_ci.review.comment import PlanMeta, approve_line, marker, status_text


@dataclass(frozen=True)
class CommentParts:
    """What a plan comment shows. ``policy``/``drift``: markdown already rendered (their
    renderers live with the policy and the drift check); ``base_execution``: the base branch's
    ``execution`` part, named ``base_label``; ``elsewhere``: where the diffs left out of the
    comment can be read (the job summary, the uploaded artifact)."""

    meta: PlanMeta
    plan: ExecutionPlan
    settings: GitHubSettings = field(default_factory=GitHubSettings)
    approvers: tuple[str, ...] = ()
    outdated: tuple[str, ...] = ()
    unmet: str | None = None
    awaited: str | None = None  # whose approval counts (the owners), markdown
    note: str | None = None
    policy: str | None = None
    drift: str | None = None
    base_execution: Mapping[str, Any] | None = None
    base_label: str | None = None
    elsewhere: str | None = None


Render = Callable[[CommentParts, int], str]


@dataclass(frozen=True)
class Section:
    name: str
    render: Render
    grows: bool = False  # shares what the fixed sections leave (the plan, the code change)


def _fit(text: str, budget: int) -> str:
    """``text`` whole, or cut at a line and said so (a short block never holds a fence)."""
    if len(text) <= budget:
        return text
    note = "\n- … (cut: see the job summary)"
    return text[: max(0, budget - len(note))].rsplit("\n", 1)[0] + note if budget > 60 else ""


def status(parts: CommentParts, budget: int) -> str:
    return status_text(
        parts.meta,
        parts.approvers,
        parts.note,
        outdated=parts.outdated,
        unmet=parts.unmet,
        awaited=parts.awaited,
    )


def policy(parts: CommentParts, budget: int) -> str:
    return _fit(parts.policy.strip(), budget) if parts.policy else ""


def drift(parts: CommentParts, budget: int) -> str:
    return _fit(parts.drift.strip(), budget) if parts.drift else ""


MAX_EXECUTION_ROWS = 40


def execution(parts: CommentParts, budget: int) -> str:
    """What changed in the plan's ``execution`` part against the base (open), then every
    execution setting (folded). Nothing for a plan without an execution part."""
    current = getattr(parts.plan, "execution", None)  # unset for a bare manifest's plan
    if current is None:
        return ""

    def cell(value: Any) -> str:
        return "_unset_" if value is MISSING else code(show(value))

    lines: list[str] = []
    base_label = parts.base_label if parts.base_execution is not None else None
    changes = execution_changes(parts.base_execution, current) if base_label is not None else []
    if changes:
        lines += [
            f"⚠️ **Execution settings differ from the base branch** ({escape(base_label or '')}); "
            "they are part of the planHash, so an approval covers them:",
            "",
        ]
        for change in changes[:MAX_EXECUTION_ROWS]:
            lines.append(f"- {cell(change.key)}: {cell(change.before)} → {cell(change.after)}")
        if len(changes) > MAX_EXECUTION_ROWS:
            lines.append(f"- … and {len(changes) - MAX_EXECUTION_ROWS} more")
        lines.append("")
    rows = list(flatten(current).items())
    lines += [
        "<details><summary>Execution settings</summary>",
        "",
        "| setting | value |",
        "|---|---|",
        *(f"| {cell(k)} | {cell(v)} |" for k, v in rows[:MAX_EXECUTION_ROWS]),
    ]
    if len(rows) > MAX_EXECUTION_ROWS:
        lines.append(f"| … | {len(rows) - MAX_EXECUTION_ROWS} more |")
    text = "\n".join([*lines, "", "</details>"])
    return text if len(text) <= budget else ""


_PLAN_OPEN, _PLAN_CLOSE = "<details><summary>Plan</summary>\n\n", "\n\n</details>"


def plan(parts: CommentParts, budget: int) -> str:
    """The plan (without its code change: a section of its own), folded."""
    room = max(budget - len(_PLAN_OPEN) - len(_PLAN_CLOSE), 200)
    text = render_markdown(parts.plan, max_chars=room, title="Plan", code_patch=False)
    if len(text) > room or text.count("<details>") != text.count("</details>"):
        text = fallback_markdown(parts.plan, max_chars=room)  # never break the comment's layout
    return _PLAN_OPEN + text + _PLAN_CLOSE


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


def code_change(parts: CommentParts, budget: int) -> str:
    """Each changed file's diff: what an approval of the full planHash covers."""
    if not parts.plan.code_patch:
        return ""
    return render_patch_markdown(
        parts.plan.code_patch, budget=budget, elsewhere=parts.elsewhere
    ).rstrip("\n")


def how_to_approve(parts: CommentParts, budget: int) -> str:
    meta, s = parts.meta, parts.settings
    if meta.pending:
        return "The approval command appears here once the code change is computed."
    who = f"a user with **{escape(s.approval_permission.value)}** permission or higher"
    if not s.allow_self_approval:
        who += " other than the pull request author"
    if not s.allow_pusher_approval:  # the last-pusher rule (averos_ci.review.pushers)
        who += (
            " " if s.allow_self_approval else ", "
        ) + "who authored or committed none of its commits"
    plain = (
        " (a plain approving review counts too, as long as this plan stays the same)"
        if s.plain_review_approvals
        else ""
    )
    return (
        f"To approve, {who} comments this line, which pins this exact plan:\n\n"
        f"{approve_line(meta.plan_hash)}\n\n"
        f"or submits an approving review on commit {code(meta.head_sha)} whose body "
        f"contains that line{plain}. A new push replaces this plan and voids earlier "
        "approvals; the plan is applied on merge only if this exact planHash was approved."
    )


SECTIONS: tuple[Section, ...] = (
    Section("status", status),
    Section("policy", policy),
    Section("drift", drift),
    Section("execution diff", execution),
    Section("plan", plan, grows=True),
    Section("code change", code_change, grows=True),
    Section("how to approve", how_to_approve),
)
_SEP = "\n\n"


def header(parts: CommentParts) -> str:
    """The marker, the metadata, the title and the counts: what finds and identifies it."""
    # the changes as the plan section below counts them (a rename is no creation)
    meta, c = parts.meta, change_counts(parts.plan)
    return "\n".join(
        [
            marker(meta.project),
            meta.encode(),
            f"### averos-ci plan — {escape(meta.project)}",
            "",
            "| planHash | head | create | update | replace | rename | unchanged | conflicts "
            "| remove |",
            "|---|---|---|---|---|---|---|---|---|",
            f"| {code(meta.plan_hash)} | {code(meta.head_sha)} | {c.create} | {c.update} "
            f"| {c.replace} | {c.rename} | {c.unchanged} | {c.conflicts} | {c.delete} |",
        ]
    )


def render_comment(parts: CommentParts, *, max_chars: int) -> str:
    """The comment: the header, then each section of :data:`SECTIONS` in order, the whole
    within ``max_chars``."""
    head = header(parts)
    left = max_chars - len(head) - len(_SEP) * len(SECTIONS) - 1
    texts: dict[str, str] = {}
    for section in (s for s in SECTIONS if not s.grows):
        texts[section.name] = text = section.render(parts, max(left, 0))
        left -= len(text)
    growing = [s for s in SECTIONS if s.grows]
    # each growing section gets at least an even share; more when the later ones need less
    natural = {s.name: s.render(parts, max(left, 0)) for s in growing}
    for i, section in enumerate(growing):
        later = sum(len(natural[s.name]) for s in growing[i + 1 :])
        share = max(left // (len(growing) - i), left - later)
        text = natural[section.name]
        if len(text) > share:  # rendered again within its share (never twice when it fits)
            text = section.render(parts, max(share, 0))
        texts[section.name] = text
        left -= len(text)
    body = _SEP.join(t for s in SECTIONS if (t := texts[s.name]))
    return f"{head}{_SEP}{body}\n"
