"""References between elements (REF-01..07, REF-09), use-case types and member names."""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING

from averos_ci.manifest import names as N
from averos_ci.manifest.report import Reporter
from averos_ci.manifest.rules.common import Members, is_simple, member_name, suggest_or_name
from averos_ci.source import Pointer

if TYPE_CHECKING:
    from averos_ci.manifest.schema import Application


def check_references(app: Application, members: Members, r: Reporter) -> None:
    entities = {e.name for e in app.entities}
    use_cases = {u.name for u in app.useCases}
    service_ids = {s.id for s in app.serviceConfigurations}
    member_names: dict[str, set[str]] = defaultdict(set)
    for (ei, mi), m in members.items():
        owner = app.entities[ei].name
        member_names[owner].add(member_name(m))
        at: Pointer = ("entities", ei, "members", mi)
        ename = m.ename
        if ename != owner:
            r.error(
                "REF-01",
                f"member ename {ename!r} does not name its entity {owner!r}",
                (*at, "ename"),
                hint=f"set ename: {owner}",
            )
        if not is_simple(m) and m.fename in entities:
            derived = m.fename[:1].lower() + m.fename[1:]
            derived += "s" if m.fieldRelationType == "OneToMany" else ""
            if m.memberName != derived:
                r.warning(
                    "CON-16",
                    f"the Averos 1.4 schematic names this member {derived!r}, not {m.memberName!r}",
                    (*at, "memberName"),
                    hint=f"use memberName: {derived} (the Angular adapter refuses other names)",
                )
        if not is_simple(m) and m.fename not in entities:
            r.error(
                "REF-02",
                f"fename {m.fename!r} names no entity",
                (*at, "fename"),
                hint=suggest_or_name(m.fename, entities, what="entities"),
            )
    for i, e in enumerate(app.entities):
        if e.sname and e.sname not in service_ids:
            r.error(
                "REF-03",
                f"service {e.sname!r} of entity {e.name!r} has no service configuration",
                ("entities", i, "sname"),
                hint=suggest_or_name(e.sname, service_ids, what="service configuration ids")
                + f" (or add a serviceConfigurations entry with id: {e.sname})",
            )
    for i, fm in enumerate(app.fieldMappings):
        if fm.ename not in entities:
            r.error(
                "REF-04",
                f"field mapping ename {fm.ename!r} names no entity",
                ("fieldMappings", i, "ename"),
                hint=suggest_or_name(fm.ename, entities, what="entities"),
            )
            continue
        for j, entry in enumerate(fm.mapping):
            if entry.fieldKey not in member_names[fm.ename] and not entry.fieldKey.startswith(
                "_entity"
            ):
                r.error(
                    "REF-05",
                    f"fieldKey {entry.fieldKey!r} is not a member of {fm.ename!r}",
                    ("fieldMappings", i, "mapping", j, "fieldKey"),
                    hint=suggest_or_name(
                        entry.fieldKey, member_names[fm.ename], what=f"members of {fm.ename}"
                    ),
                )
    for i, s in enumerate(app.services):
        if s.ename and s.ename not in entities:
            r.error(
                "REF-06",
                f"service ename {s.ename!r} names no entity",
                ("services", i, "ename"),
                hint=suggest_or_name(s.ename, entities, what="entities"),
            )
    for i, u in enumerate(app.useCases):
        if u.useCaseType not in N.USE_CASE_TYPES:
            r.error(
                "CON-08",
                f"unknown useCaseType {u.useCaseType!r}",
                ("useCases", i, "useCaseType"),
                hint="one of " + ", ".join(sorted(N.USE_CASE_TYPES)),
            )
        if u.ename not in entities:
            r.error(
                "REF-09",
                f"use case ename {u.ename!r} names no entity",
                ("useCases", i, "ename"),
                hint=suggest_or_name(u.ename, entities, what="entities"),
            )
    targets = entities | use_cases
    for li, lang in enumerate(app.languages):
        for ti, t in enumerate(lang.translationEntries):
            if t.targetEntity and t.targetEntity not in targets:
                r.warning(
                    "REF-07",
                    f"targetEntity {t.targetEntity!r} names no entity or use case",
                    ("languages", li, "translationEntries", ti, "targetEntity"),
                    hint=suggest_or_name(t.targetEntity, targets, what="entities and use cases"),
                )
