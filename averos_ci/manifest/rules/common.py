"""What several rules share: the members table, a member's name, "did you mean"."""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel

from averos_ci.manifest.schema import SimpleMember

Members = dict[tuple[int, int], BaseModel]


def member_name(m: BaseModel) -> str:
    return m.mname if isinstance(m, SimpleMember) else m.memberName  # type: ignore[attr-defined]


def member_key(m: BaseModel) -> str:
    return "mname" if isinstance(m, SimpleMember) else "memberName"


def suggest(name: str, choices: Iterable[str]) -> str | None:
    import difflib

    close = difflib.get_close_matches(name, sorted(choices), n=1)
    return f"did you mean {close[0]!r}?" if close else None
