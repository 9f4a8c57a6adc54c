"""Members: types (CON-08), enumerations (CON-07, CON-14), ID and BusinessID tags (CON-09)."""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING, Any

from averos_ci.manifest import names as N
from averos_ci.manifest.report import Reporter
from averos_ci.manifest.rules.common import Members, is_simple
from averos_ci.source import Pointer

if TYPE_CHECKING:
    from averos_ci.manifest.schema import Application


def check_members(app: Application, members: Members, r: Reporter) -> None:
    tags: dict[tuple[int, str], list[Pointer]] = defaultdict(list)
    for (ei, mi), m in sorted(members.items()):
        at: Pointer = ("entities", ei, "members", mi)
        if is_simple(m):
            _simple(m, at, r)
            tag = m.memberTag or ""
            if tag:
                if tag not in N.MEMBER_TAGS:
                    r.error(
                        "CON-09",
                        f"memberTag must be ID or BusinessID, not {tag!r}",
                        (*at, "memberTag"),
                    )
                else:
                    tags[(ei, tag)].append(at)
                    if m.memberType not in N.TAGGABLE_TYPES:
                        r.error(
                            "CON-09",
                            f"a {tag} member must be a string or a number, not {m.memberType!r}",
                            (*at, "memberType"),
                        )
        else:
            if m.fieldRelationType not in N.RELATION_TYPES:
                r.error(
                    "CON-08",
                    f"unknown fieldRelationType {m.fieldRelationType!r}",
                    (*at, "fieldRelationType"),
                    hint="one of " + ", ".join(sorted(N.RELATION_TYPES)),
                )
            if m.deleteStrategy and m.deleteStrategy not in N.DELETE_STRATEGIES:
                r.error(
                    "CON-08",
                    f"unknown deleteStrategy {m.deleteStrategy!r}",
                    (*at, "deleteStrategy"),
                    hint="one of " + ", ".join(sorted(N.DELETE_STRATEGIES)),
                )
    for (ei, tag), places in tags.items():
        for at in places[1:]:
            r.error(
                "CON-09",
                f"entity {app.entities[ei].name!r} has more than one {tag} member",
                (*at, "memberTag"),
                hint=f"keep {tag} on one member only",
            )


def _simple(m: Any, at: Pointer, r: Reporter) -> None:
    if m.memberType not in N.MEMBER_TYPES:
        r.error(
            "CON-08",
            f"unknown memberType {m.memberType!r}",
            (*at, "memberType"),
            hint="one of " + ", ".join(sorted(N.MEMBER_TYPES)),
        )
        return
    values = m.listOfEnumValues or ""
    if m.memberType == "enumeration":
        items = [v.strip() for v in values.split(",")]
        if not values.strip():
            r.error(
                "CON-07",
                "an enumeration member needs listOfEnumValues",
                at,
                hint="e.g. listOfEnumValues: Active,Closed,New",
            )
            return
        seen: set[str] = set()
        for v in items:
            if not N.IDENTIFIER.match(v):
                r.error(
                    "CON-07", f"enum value {v!r} is not an identifier", (*at, "listOfEnumValues")
                )
            elif v in seen:
                r.error("CON-07", f"enum value {v!r} is repeated", (*at, "listOfEnumValues"))
            seen.add(v)
    elif values.strip():
        r.warning(
            "CON-14",
            f"listOfEnumValues is ignored for a {m.memberType} member",
            (*at, "listOfEnumValues"),
        )
