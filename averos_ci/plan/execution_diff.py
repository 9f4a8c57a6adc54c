"""What changed in a plan's ``execution`` part (adapter, adapterOptions, workspaceRoot …)
against a reference, usually the base branch's config: a change there voids an approval,
so the reviewer must see it, key by key (``adapterOptions.registry: A → B``)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

MAX_VALUE = 120  # characters of a value shown; the rest is counted


@dataclass(frozen=True)
class ExecutionChange:
    key: str  # dotted: ``adapterOptions.registry``
    before: Any  # ``MISSING`` when added
    after: Any  # ``MISSING`` when removed


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()


def flatten(execution: Mapping[str, Any] | None, prefix: str = "") -> dict[str, Any]:
    """Dotted keys to leaf values (lists are leaves; an empty object is a leaf ``{}``)."""
    out: dict[str, Any] = {}
    for key in sorted(execution or {}):
        value = (execution or {})[key]
        name = f"{prefix}{key}"
        if isinstance(value, Mapping) and value:
            out.update(flatten(value, name + "."))
        else:
            out[name] = value
    return out


def execution_changes(
    before: Mapping[str, Any] | None, after: Mapping[str, Any] | None
) -> list[ExecutionChange]:
    """The keys whose value differs, in key order."""
    old, new = flatten(before), flatten(after)
    return [
        ExecutionChange(key, old.get(key, MISSING), new.get(key, MISSING))
        for key in sorted(set(old) | set(new))
        if old.get(key, MISSING) != new.get(key, MISSING)
    ]


def show(value: Any) -> str:
    """A value on one line: strings as they are, the rest as JSON; long ones cut."""
    if value is MISSING:
        return "(unset)"
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True)
    text = " ".join(text.split())
    if len(text) > MAX_VALUE:
        text = text[:MAX_VALUE] + f"…[+{len(text) - MAX_VALUE} chars]"
    return text
