"""Attribute-level changes of one element: what a reviewer approves, value by value.

Attributes are an element's args (the schematic options) plus ``command`` when it changes.
Values are kept whole (a mapping list or a provider's ``config`` is one value); fields an
element kind declares sensitive are flagged so that every renderer masks them.
"""

from __future__ import annotations

from typing import Any

from averos_ci.plan.elements import Element
from averos_ci.plan.model import AttributeChange, AttrOp

_ADD, _UPDATE, _REMOVE = AttrOp.ADD, AttrOp.UPDATE, AttrOp.REMOVE


# One shared "fields set" for every attribute: all fields are always set, and a plan of 100k
# nodes holds ~500k attributes (a set per object would cost ~100 MB).
_FIELDS_SET = set(AttributeChange.model_fields)
_new = AttributeChange.__new__
_set = object.__setattr__


# Equal attributes are one object (a plan's attributes are frozen): on 5,000 entities most of
# ~500,000 attributes repeat ("type: string", "name: field01", an entity's name per member).
# Only scalar values are shared, keyed with their types (1, True and 1.0 are equal keys).
Shared = dict[tuple[Any, ...], AttributeChange]
_SCALARS = frozenset({str, int, bool, type(None)})


def _attr(
    field: str, op: AttrOp, before: Any, after: Any, sensitive: bool, shared: Shared | None
) -> AttributeChange:
    key = None
    if shared is not None and type(before) in _SCALARS and type(after) in _SCALARS:
        key = (field, op, type(before), before, type(after), after, sensitive)
        found = shared.get(key)
        if found is not None:
            return found
    obj = _make(field, op, before, after, sensitive)
    if key is not None:
        shared[key] = obj  # type: ignore[index]
    return obj


def _make(field: str, op: AttrOp, before: Any, after: Any, sensitive: bool) -> AttributeChange:
    # fast_construct's steps, with the shared set (the planner's values need no validation)
    obj = _new(AttributeChange)
    _set(
        obj,
        "__dict__",
        {"field": field, "op": op, "before": before, "after": after, "sensitive": sensitive},
    )
    _set(obj, "__pydantic_fields_set__", _FIELDS_SET)
    _set(obj, "__pydantic_extra__", None)
    _set(obj, "__pydantic_private__", None)
    return obj


def created(element: Element, *, shared: Shared | None = None) -> tuple[AttributeChange, ...]:
    """Every arg of a new element: its defining attributes."""
    secret = element.sensitive_fields
    if shared is None:
        return tuple(_make(k, _ADD, None, v, k in secret) for k, v in sorted(element.args.items()))
    # _attr inlined: a plan of 5,000 new entities creates ~500,000 attributes
    out = []
    for k, v in sorted(element.args.items()):
        sensitive = k in secret
        kind = type(v)
        if kind not in _SCALARS:
            out.append(_make(k, _ADD, None, v, sensitive))
            continue
        key = (k, _ADD, _NONE, None, kind, v, sensitive)  # _attr's key
        found = shared.get(key)
        if found is None:
            found = shared[key] = _make(k, _ADD, None, v, sensitive)
        out.append(found)
    return tuple(out)


_NONE = type(None)


def removed(element: Element, *, shared: Shared | None = None) -> tuple[AttributeChange, ...]:
    """Every arg of a removed element: what would be lost."""
    secret = element.sensitive_fields
    return tuple(
        _attr(k, _REMOVE, v, None, k in secret, shared) for k, v in sorted(element.args.items())
    )


def changed(
    old: Element, new: Element, *, shared: Shared | None = None
) -> tuple[AttributeChange, ...]:
    """The args that differ (all of them, a rename's name fields included), then ``command``."""
    secret = old.sensitive_fields | new.sensitive_fields
    out: list[AttributeChange] = []
    if old.command != new.command:
        out.append(_attr("command", _UPDATE, old.command, new.command, False, shared))
    before, after = old.args, new.args
    for k in sorted(before.keys() | after.keys()):
        if k not in after:
            out.append(_attr(k, _REMOVE, before[k], None, k in secret, shared))
        elif k not in before:
            out.append(_attr(k, _ADD, None, after[k], k in secret, shared))
        elif before[k] != after[k]:
            out.append(_attr(k, _UPDATE, before[k], after[k], k in secret, shared))
    return tuple(out)
