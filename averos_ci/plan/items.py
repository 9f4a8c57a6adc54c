"""What a reviewer reads: the plan's changes grouped by element, value by value.

Render-agnostic: items carry plain text (never escaped here); ``render`` turns them into
terminal text or markdown. Groups follow the manifest's shape: an entity with its members, a
language with its entries, every other element on its own.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from averos_ci.plan.model import AttributeChange, AttrOp, Bucket, Change, ExecutionPlan, Phase

VALUE_CHARS = 80  # longer values are shortened, with a visible marker
SENSITIVE = "(sensitive)"
MARKS = {
    "create": "+",
    "update": "~",
    "conflict": "!",
    "remove": "-",
    "replace": "-/+",
    "rename": ">",  # a declared rename: the element moves to its new name (Terraform's moved)
}
_ATTR_MARKS = {AttrOp.ADD: "+", AttrOp.UPDATE: "~", AttrOp.REMOVE: "-"}
# Args that only repeat the element's identity (already in its id): not listed for creates
# and removals; a change of them (a rename) is listed.
_IDENTITY = frozenset(
    {"name", "ename", "mname", "memberName", "lang", "key", "languageCode", "applicationName"}
)
_CONTROL = re.compile(
    r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]"
)  # + bidi overrides
_CHILD_OWNER = {"simple-field": "entity", "composite-field": "entity"}


def plain(text: str) -> str:
    """One line, no control characters (a manifest string must not drive the terminal)."""
    return _CONTROL.sub(lambda m: json.dumps(m.group())[1:-1], text)


def shorten(text: str, limit: int = VALUE_CHARS) -> str:
    if len(text) <= limit:
        return text
    keep = limit - 20
    return f"{text[:keep]}…[+{len(text) - keep} chars]"


def value(v: Any, *, sensitive: bool = False) -> str:
    """A value as reviewers read it: JSON (strings quoted), one line, shortened, masked."""
    if sensitive:
        return SENSITIVE
    return shorten(plain(json.dumps(v, ensure_ascii=False, sort_keys=True)))


def _bare(v: Any) -> str:
    return shorten(plain(str(v)))


@dataclass(frozen=True)
class AttrLine:
    mark: str
    text: str  # "apiPort: 3000 → 3100"


@dataclass(frozen=True)
class Item:
    """One changed element: a line, and its attribute lines."""

    node_id: str
    mark: str
    text: str  # "summary: textarea  [add-simple-member]"
    attrs: tuple[AttrLine, ...]


@dataclass
class Group:
    owner: str  # the owning element's id: entity:Book, translation:fr, service-config:X
    phase: Phase
    head: Item | None = None  # the owner's own change, if any
    children: list[Item] = field(default_factory=list)

    @property
    def size(self) -> int:
        return (self.head is not None) + len(self.children)


def owner_of(node_id: str) -> tuple[str, str | None]:
    """(owner id, label inside the owner's group) — label None when the node owns itself."""
    prefix, _, rest = node_id.partition(":")
    if prefix in _CHILD_OWNER:
        entity, _, member = rest.partition(":")
        return f"entity:{entity}", member
    if prefix == "translation-entry":
        lang, _, key = rest.partition(":")
        return f"translation:{lang}", key
    return node_id, None


def attr_line(a: AttributeChange) -> AttrLine:
    mark = _ATTR_MARKS[a.op]
    if a.op is AttrOp.ADD:
        shown = value(a.after, sensitive=a.sensitive)
    elif a.op is AttrOp.REMOVE:
        shown = value(a.before, sensitive=a.sensitive)
    else:
        shown = (
            f"{value(a.before, sensitive=a.sensitive)} → {value(a.after, sensitive=a.sensitive)}"
        )
        if a.sensitive and isinstance(a.before, dict) and isinstance(a.after, dict):
            keys = sorted(
                k for k in a.before.keys() | a.after.keys() if a.before.get(k) != a.after.get(k)
            )
            shown += f" (entries changed: {shorten(plain(', '.join(map(str, keys))))})"
    return AttrLine(mark, f"{plain(a.field)}: {shown}")


def _summary(change: Change, kind: str) -> tuple[str | None, list[AttributeChange]]:
    """A one-line summary of a member or an entry, and the attributes it does not cover."""
    attrs = {a.field: a for a in change.attributes}
    if kind != "translation-entry" and any(a.sensitive for a in change.attributes):
        return None, _listed(change)  # a member's summary prints values bare: list them, masked
    whole = change.bucket in (Bucket.TO_ADD, Bucket.TO_REMOVE)  # every attribute, one side
    side = "after" if change.bucket is Bucket.TO_ADD else "before"
    get = {k: getattr(a, side) for k, a in attrs.items()}
    if whole and kind == "simple-member" and "memberType" in get:
        text = _bare(get["memberType"])
        if "memberTag" in get:
            text += f" [{_bare(get['memberTag'])}]"
        if "listOfEnumValues" in get:
            text += f" ({_bare(get['listOfEnumValues'])})"
        covered = {"memberType", "memberTag", "listOfEnumValues"}
    elif whole and kind == "composite-member" and "fename" in get:
        text = f"{_bare(get.get('fieldRelationType', '?'))} → {_bare(get['fename'])}"
        if "deleteStrategy" in get:
            text += f" (deleteStrategy {_bare(get['deleteStrategy'])})"
        covered = {"fename", "fieldRelationType", "deleteStrategy"}
    elif kind == "translation-entry" and set(attrs) == {"value"}:
        return attr_line(attrs["value"]).text.partition(": ")[2], []
    elif whole and kind == "translation-entry" and "value" in get:
        text, covered = value(get["value"], sensitive=attrs["value"].sensitive), {"value"}
    else:
        return None, _listed(change)
    return text, [a for a in _listed(change) if a.field not in covered]


def _listed(change: Change) -> list[AttributeChange]:
    if change.bucket in (Bucket.TO_ADD, Bucket.TO_REMOVE):
        return [a for a in change.attributes if a.field not in _IDENTITY]
    return list(change.attributes)


def item(change: Change, *, mark: str, command: str | None, label: str | None) -> Item:
    summary, rest = _summary(change, change.kind) if label is not None else (None, _listed(change))
    text = plain(label if label is not None else change.id)
    if change.renamed_from is not None:
        old_label = owner_of(change.renamed_from)[1] if label is not None else None
        text = f"{plain(old_label or change.renamed_from)} → {text} (renamed)"
    if summary is not None:
        text += f": {summary}"
    if mark == MARKS["conflict"]:
        text += f"  (conflict: {plain(change.reason or '')})"
    elif mark in (MARKS["remove"], MARKS["replace"]):
        text += f"  ({plain(change.reason or 'destroy')})"
    elif command is not None:
        text += f"  [{plain(command)}]"
    return Item(change.id, mark, text, tuple(attr_line(a) for a in rest))


def groups(plan: ExecutionPlan) -> list[Group]:
    """Every change of the plan (executable nodes, conflicts, removals), grouped by owner."""
    nodes = {n.id: n for n in plan.nodes}
    changes: list[tuple[Change, str]] = [
        *((c, MARKS["create"]) for c in plan.diff.to_add),
        *((c, MARKS["update"]) for c in plan.diff.to_update),
        *((c, MARKS["conflict"]) for c in plan.diff.conflicts),
        *((c, MARKS["remove"]) for c in plan.diff.to_remove),
    ]
    position = {n.id: i for i, n in enumerate(plan.nodes)}
    late = len(position)
    changes.sort(key=lambda cm: (position.get(cm[0].id, late), cm[0].id))
    by_owner: dict[str, Group] = {}
    for change, mark in changes:
        node = nodes.get(change.id)
        if mark == MARKS["update"]:
            mark = _update_mark(change)
        owner, label = owner_of(change.id)
        group = by_owner.get(owner)
        if group is None:
            owner_node = nodes.get(owner)
            phase = owner_node.phase if owner_node else _phase_of(owner)
            group = by_owner[owner] = Group(owner, phase)
        entry = item(change, mark=mark, command=node.command if node else None, label=label)
        if label is None:
            group.head = entry
        else:
            group.children.append(entry)
    return sorted(by_owner.values(), key=lambda g: g.phase.rank)  # stable: plan order inside


def _update_mark(change: Change) -> str:
    """A change of the toUpdate bucket as a reviewer counts it: generated anew (Terraform's
    "forces replacement"), renamed (its node generates the new name), or updated in place."""
    if change.reason is not None:
        return MARKS["replace"]
    if change.renamed_from is not None:
        return MARKS["rename"]
    return MARKS["update"]


@dataclass(frozen=True)
class ChangeCounts:
    """The plan's changes counted as they are shown, each once: Terraform's "N to add, N to
    change, N to destroy" with its replacements and moves. ``plan.counts`` counts the nodes
    by action instead (a renamed element's node creates its new name)."""

    create: int  # new elements, and elements re-run to restore missing files (drift repair)
    update: int  # updated in place
    replace: int  # generated anew (``-/+``), renamed or not
    rename: int  # renamed, not replaced
    delete: int
    unchanged: int
    conflicts: int

    def to_wire(self) -> dict[str, int]:
        return dict(vars(self))


def change_counts(plan: ExecutionPlan) -> ChangeCounts:
    marks = Counter(_update_mark(c) for c in plan.diff.to_update)
    return ChangeCounts(
        create=len(plan.diff.to_add) + len(plan.repair),
        update=marks[MARKS["update"]],
        replace=marks[MARKS["replace"]],
        rename=marks[MARKS["rename"]],
        delete=len(plan.diff.to_remove),
        unchanged=plan.counts.skip,
        conflicts=plan.counts.conflicts,
    )


def _phase_of(owner: str) -> Phase:
    prefix = owner.partition(":")[0]
    return Phase(prefix) if prefix in Phase._value2member_map_ else Phase.APPLICATION
