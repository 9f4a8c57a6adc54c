"""What several rules share: the members table, a member's name, "did you mean"."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

# (entity index, member index) -> the member: a pydantic model (schema.py) or a checked
# plain Shape (shape.py) with the same attributes. Rules read attributes only.
Members = dict[tuple[int, int], Any]


def is_simple(m: Any) -> bool:
    """A simple member (else composite: validation let no other memberNature through)."""
    return m.memberNature == "simple"  # type: ignore[no-any-return]


def member_name(m: Any) -> str:
    return m.mname if is_simple(m) else m.memberName  # type: ignore[no-any-return]


def member_key(m: Any) -> str:
    return "mname" if is_simple(m) else "memberName"


def suggest_or_name(name: str, choices: Iterable[str], *, what: str) -> str:
    """:func:`averos_ci._suggest.suggest_or_name`, imported on a finding: the did-you-mean,
    else the names there are (a reference to a missing element always says what exists)."""
    from averos_ci._suggest import suggest_or_name as hint

    return hint(name, choices, what=what)
