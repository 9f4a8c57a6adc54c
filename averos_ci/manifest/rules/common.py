"""What several rules share: the members table, a member's name, "did you mean"."""

from __future__ import annotations

from pydantic import BaseModel

from averos_ci._suggest import suggest as suggest
from averos_ci.manifest.schema import SimpleMember

Members = dict[tuple[int, int], BaseModel]


def member_name(m: BaseModel) -> str:
    return m.mname if isinstance(m, SimpleMember) else m.memberName  # type: ignore[attr-defined]


def member_key(m: BaseModel) -> str:
    return "mname" if isinstance(m, SimpleMember) else "memberName"
