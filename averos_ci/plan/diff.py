"""Semantic diff in Averos's five buckets, element by element."""

from __future__ import annotations

from dataclasses import dataclass

from averos_ci._model import fast_construct
from averos_ci.plan import attributes
from averos_ci.plan.elements import ALL, Element
from averos_ci.plan.model import Action, Bucket, Change

REMOVAL_REASON = "destroy: no longer in the manifest"


def replacement_reason(fields: list[str]) -> str:
    """Why a change is a replacement: no schematic updates these fields of an existing element,
    so the element is generated anew (regeneration: averos_ci.execute.regen)."""
    return f"forces replacement: {', '.join(fields)} cannot be updated in place"


@dataclass(frozen=True)
class ElementDiff:
    actions: dict[str, Action]  # new element key -> node action
    changes: dict[Bucket, list[Change]]


def _change(**kwargs: object) -> Change:
    # The planner's own values need no validation; constructing 100k changes must stay cheap.
    values = {"fields": (), "reason": None, "renamed_from": None, "attributes": (), **kwargs}
    # every field set: share one "fields set" (frozen)
    shared = _CHANGE_FIELDS if len(values) == len(_CHANGE_FIELDS) else None
    return fast_construct(Change, values, shared)


# One set for every change (a set per object cost ~80 MB on a plan of 120,000 nodes).
_CHANGE_FIELDS = set(Change.model_fields)
_CREATE, _TO_ADD = Action.CREATE, Bucket.TO_ADD


def _changed_fields(old: Element, new: Element, *, renamed: bool) -> list[str]:
    keys = set(old.args) | set(new.args)
    if renamed:
        keys -= new.ignore_on_rename
    fields = sorted(k for k in keys if old.args.get(k) != new.args.get(k))
    if old.command != new.command:
        fields.insert(0, "command")
    return fields


def _is_conflict(new: Element, fields: list[str]) -> bool:
    if new.conflict_fields == ALL:
        return bool(fields)
    return "command" in fields or any(f in new.conflict_fields for f in fields)


def diff_elements(old: dict[str, Element], new: dict[str, Element]) -> ElementDiff:
    actions: dict[str, Action] = {}
    changes: dict[Bucket, list[Change]] = {b: [] for b in Bucket}
    matched: set[str] = set()
    shared: attributes.Shared = {}  # equal attributes: one object (attributes.py)
    to_add = changes[Bucket.TO_ADD]
    for key, element in new.items():
        before = old.get(key)
        renamed_from = None
        if before is None and element.rename_of and element.rename_of in old:
            before = old[element.rename_of]
            renamed_from = before.id
        if before is None:
            actions[key] = _CREATE
            to_add.append(
                _change(
                    id=element.id,
                    kind=element.kind,
                    bucket=_TO_ADD,
                    attributes=attributes.created(element, shared=shared),
                )
            )
            continue
        matched.add(before.key)
        fields = _changed_fields(before, element, renamed=renamed_from is not None)
        if _is_conflict(element, fields):
            # Not a conflict any more: the element is regenerated (Terraform's ``-/+``).
            actions[key] = Action.UPDATE if renamed_from is None else Action.CREATE
            changes[Bucket.TO_UPDATE].append(
                _change(
                    id=element.id,
                    kind=element.kind,
                    bucket=Bucket.TO_UPDATE,
                    fields=tuple(fields),
                    renamed_from=renamed_from,
                    reason=replacement_reason(fields),
                    attributes=attributes.changed(before, element, shared=shared),
                )
            )
        elif renamed_from is not None:
            # Averos generates by name: a declared rename generates the new name; regeneration
            # removes the old name's code (and carries the user's edits to the new files).
            actions[key] = Action.CREATE
            changes[Bucket.TO_UPDATE].append(
                _change(
                    id=element.id,
                    kind=element.kind,
                    bucket=Bucket.TO_UPDATE,
                    fields=tuple(fields),
                    renamed_from=renamed_from,
                    attributes=attributes.changed(before, element, shared=shared),
                )
            )
        elif fields:
            actions[key] = Action.UPDATE
            changes[Bucket.TO_UPDATE].append(
                _change(
                    id=element.id,
                    kind=element.kind,
                    bucket=Bucket.TO_UPDATE,
                    fields=tuple(fields),
                    attributes=attributes.changed(before, element, shared=shared),
                )
            )
        else:
            actions[key] = Action.SKIP
            changes[Bucket.UNCHANGED].append(
                _change(id=element.id, kind=element.kind, bucket=Bucket.UNCHANGED)
            )
    for key, element in old.items():
        if key not in matched and key not in new:
            changes[Bucket.TO_REMOVE].append(
                _change(
                    id=element.id,
                    kind=element.kind,
                    bucket=Bucket.TO_REMOVE,
                    reason=REMOVAL_REASON,
                    attributes=attributes.removed(element, shared=shared),
                )
            )
    for bucket in changes.values():
        bucket.sort(key=lambda c: c.id)
    return ElementDiff(actions, changes)
