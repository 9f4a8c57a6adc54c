"""Unique names (CON-01): entities, members, use cases, services, pages, languages, locales."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from averos_ci.manifest.report import Reporter
from averos_ci.manifest.rules.common import Members, member_key, member_name
from averos_ci.source import Pointer

if TYPE_CHECKING:
    from averos_ci.manifest.schema import Application


def _dupes(items: Iterable[tuple[str, Pointer]], what: str, r: Reporter) -> None:
    seen: dict[str, Pointer] = {}
    for name, at in items:
        if name in seen:
            first = "/".join(map(str, seen[name]))
            r.error(
                "CON-01",
                f"duplicate {what} {name!r} (first defined at /{first})",
                at,
                hint=f"{what} names must be unique",
            )
        else:
            seen[name] = at


def check_duplicates(app: Application, members: Members, r: Reporter) -> None:
    _dupes(((e.name, ("entities", i, "name")) for i, e in enumerate(app.entities)), "entity", r)
    by_entity: dict[int, list[tuple[int, Any]]] = defaultdict(list)
    for (ei, mi), m in sorted(members.items()):
        by_entity[ei].append((mi, m))
    for ei, entity_members in by_entity.items():
        _dupes(
            (
                (member_name(m), ("entities", ei, "members", mi, member_key(m)))
                for mi, m in entity_members
            ),
            "member",
            r,
        )
    for key, what in (
        ("useCases", "use case"),
        ("serviceConfigurations", "service configuration"),
        ("services", "service"),
        ("blankPages", "page"),
        ("fieldMappings", "field mapping"),
        ("authentication", "provider"),
    ):
        _dupes(
            (
                (getattr(x, "name"), (key, i, "name"))  # noqa: B009
                for i, x in enumerate(getattr(app, key))
            ),
            what,
            r,
        )
    _dupes(
        (
            (s.id, ("serviceConfigurations", i, "id"))
            for i, s in enumerate(app.serviceConfigurations)
        ),
        "service configuration id",
        r,
    )
    _dupes(
        (
            (lang.languageCode, ("languages", i, "languageCode"))
            for i, lang in enumerate(app.languages)
        ),
        "language",
        r,
    )
    for li, lang in enumerate(app.languages):
        _dupes(
            (
                (t.localeID, ("languages", li, "translationEntries", ti, "localeID"))
                for ti, t in enumerate(lang.translationEntries)
            ),
            "localeID",
            r,
        )
