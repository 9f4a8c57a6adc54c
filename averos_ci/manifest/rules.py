"""Semantic rules (Layer 2). Each finding has a stable code:

REF-xx references, CON-xx constraints (see the README's table of codes).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from pydantic import BaseModel

from averos_ci.manifest import names as N
from averos_ci.manifest.report import Reporter
from averos_ci.manifest.schema import Application, CompositeMember, SimpleMember
from averos_ci.source import Pointer

Members = dict[tuple[int, int], BaseModel]


def check_semantics(app: Application, members: Members, r: Reporter) -> None:
    _names(app, members, r)
    _duplicates(app, members, r)
    _members(app, members, r)
    _references(app, members, r)
    _settings(app, r)


def _check_name(name: str, at: Pointer, r: Reporter, *, pascal: bool, what: str) -> None:
    problem = N.name_problem(name, pascal=pascal)
    if problem:
        code, message = problem
        hint = {
            "CON-05": "choose another name: it becomes TypeScript code",
            "CON-06": "names become file names: no '/', '\\' or '..'",
            "CON-04": "shorten the name",
        }.get(code) or (
            "use letters and digits, starting with an upper-case letter (e.g. ToDoTask)"
            if pascal
            else "use letters, digits and '_', not starting with a digit"
        )
        r.error(code, f"{what} {message}", at, hint=hint)


def _check_rename(old: str, new: str, at: Pointer, r: Reporter, *, pascal: bool) -> None:
    if old == new:
        r.error(
            "CON-15",
            f"renamedFrom {old!r} is the element's own name",
            at,
            hint="remove renamedFrom once the rename has been applied",
        )
    else:
        _check_name(old, at, r, pascal=pascal, what="renamedFrom")


def _names(app: Application, members: Members, r: Reporter) -> None:
    _check_name(app.applicationName, ("applicationName",), r, pascal=True, what="application")
    for i, e in enumerate(app.entities):
        _check_name(e.name, ("entities", i, "name"), r, pascal=True, what="entity")
        if e.sname:
            _check_name(e.sname, ("entities", i, "sname"), r, pascal=True, what="service")
    for i, e in enumerate(app.entities):
        if e.renamedFrom is not None:
            _check_rename(e.renamedFrom, e.name, ("entities", i, "renamedFrom"), r, pascal=True)
    for (ei, mi), m in members.items():
        at: Pointer = ("entities", ei, "members", mi)
        if isinstance(m, SimpleMember):
            _check_name(m.mname, (*at, "mname"), r, pascal=False, what="member")
        elif isinstance(m, CompositeMember):
            _check_name(m.memberName, (*at, "memberName"), r, pascal=False, what="member")
        renamed = getattr(m, "renamedFrom", None)
        if renamed is not None:
            _check_rename(renamed, _member_name(m), (*at, "renamedFrom"), r, pascal=False)
    for key, items in (
        ("useCases", app.useCases),
        ("blankPages", app.blankPages),
        ("serviceConfigurations", app.serviceConfigurations),
        ("services", app.services),
        ("fieldMappings", app.fieldMappings),
        ("authentication", app.authentication),
    ):
        for i, item in enumerate(items):
            name = getattr(item, "name")  # noqa: B009 - all these shapes have a name
            _check_name(name, (key, i, "name"), r, pascal=True, what=key.rstrip("s"))
    for li, lang in enumerate(app.languages):
        for ti, t in enumerate(lang.translationEntries):
            if not N.LOCALE_ID.match(t.localeID) or ".." in t.localeID:
                r.error(
                    "CON-13",
                    f"localeID {t.localeID!r} is not a dotted key",
                    ("languages", li, "translationEntries", ti, "localeID"),
                    hint="use letters, digits, '_', '-' and single dots",
                )


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


def _duplicates(app: Application, members: Members, r: Reporter) -> None:
    _dupes(((e.name, ("entities", i, "name")) for i, e in enumerate(app.entities)), "entity", r)
    by_entity: dict[int, list[tuple[int, BaseModel]]] = defaultdict(list)
    for (ei, mi), m in sorted(members.items()):
        by_entity[ei].append((mi, m))
    for ei, entity_members in by_entity.items():
        _dupes(
            (
                (_member_name(m), ("entities", ei, "members", mi, _member_key(m)))
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


def _member_name(m: BaseModel) -> str:
    return m.mname if isinstance(m, SimpleMember) else m.memberName  # type: ignore[attr-defined]


def _member_key(m: BaseModel) -> str:
    return "mname" if isinstance(m, SimpleMember) else "memberName"


def _members(app: Application, members: Members, r: Reporter) -> None:
    tags: dict[tuple[int, str], list[Pointer]] = defaultdict(list)
    for (ei, mi), m in sorted(members.items()):
        at: Pointer = ("entities", ei, "members", mi)
        if isinstance(m, SimpleMember):
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
        elif isinstance(m, CompositeMember):
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


def _simple(m: SimpleMember, at: Pointer, r: Reporter) -> None:
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


def _references(app: Application, members: Members, r: Reporter) -> None:
    entities = {e.name for e in app.entities}
    use_cases = {u.name for u in app.useCases}
    service_ids = {s.id for s in app.serviceConfigurations}
    member_names: dict[str, set[str]] = defaultdict(set)
    for (ei, mi), m in members.items():
        owner = app.entities[ei].name
        member_names[owner].add(_member_name(m))
        at: Pointer = ("entities", ei, "members", mi)
        ename = m.ename  # type: ignore[attr-defined]
        if ename != owner:
            r.error(
                "REF-01",
                f"member ename {ename!r} does not name its entity {owner!r}",
                (*at, "ename"),
                hint=f"set ename: {owner}",
            )
        if isinstance(m, CompositeMember) and m.fename in entities:
            derived = m.fename[:1].lower() + m.fename[1:]
            derived += "s" if m.fieldRelationType == "OneToMany" else ""
            if m.memberName != derived:
                r.warning(
                    "CON-16",
                    f"the Averos 1.4 schematic names this member {derived!r}, not {m.memberName!r}",
                    (*at, "memberName"),
                    hint=f"use memberName: {derived} (the angular-schematics adapter refuses "
                    "other names)",
                )
        if isinstance(m, CompositeMember) and m.fename not in entities:
            r.error(
                "REF-02",
                f"fename {m.fename!r} names no entity",
                (*at, "fename"),
                hint=_suggest(m.fename, entities),
            )
    for i, e in enumerate(app.entities):
        if e.sname and e.sname not in service_ids:
            r.error(
                "REF-03",
                f"service {e.sname!r} of entity {e.name!r} has no service configuration",
                ("entities", i, "sname"),
                hint=_suggest(e.sname, service_ids)
                or f"add a serviceConfigurations entry with id: {e.sname}",
            )
    for i, fm in enumerate(app.fieldMappings):
        if fm.ename not in entities:
            r.error(
                "REF-04",
                f"field mapping ename {fm.ename!r} names no entity",
                ("fieldMappings", i, "ename"),
                hint=_suggest(fm.ename, entities),
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
                    hint=_suggest(entry.fieldKey, member_names[fm.ename]),
                )
    for i, s in enumerate(app.services):
        if s.ename and s.ename not in entities:
            r.error(
                "REF-06",
                f"service ename {s.ename!r} names no entity",
                ("services", i, "ename"),
                hint=_suggest(s.ename, entities),
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
                hint=_suggest(u.ename, entities),
            )
    targets = entities | use_cases
    for li, lang in enumerate(app.languages):
        for ti, t in enumerate(lang.translationEntries):
            if t.targetEntity and t.targetEntity not in targets:
                r.warning(
                    "REF-07",
                    f"targetEntity {t.targetEntity!r} names no entity or use case",
                    ("languages", li, "translationEntries", ti, "targetEntity"),
                )


def _settings(app: Application, r: Reporter) -> None:
    codes = {lang.languageCode for lang in app.languages}
    for i, lang in enumerate(app.languages):
        if lang.languageCode not in N.LANGUAGE_CODES:
            r.error(
                "CON-10",
                f"unknown language code {lang.languageCode!r}",
                ("languages", i, "languageCode"),
                hint="Averos supports " + ", ".join(sorted(N.LANGUAGE_CODES)),
            )
    default = app.defaultLanguageCode
    if default is not None:
        if default not in N.LANGUAGE_CODES:
            r.error(
                "CON-10",
                f"unknown defaultLanguageCode {default!r}",
                ("defaultLanguageCode",),
                hint="Averos supports " + ", ".join(sorted(N.LANGUAGE_CODES)),
            )
        elif app.languages and default not in codes:
            r.warning(
                "REF-10",
                f"defaultLanguageCode {default!r} has no languages entry",
                ("defaultLanguageCode",),
            )
    if app.enableAuthentication:
        provider = app.defaultAuthenticationProvider
        types = {a.providerType for a in app.authentication}
        if not provider:
            r.error(
                "CON-11",
                "authentication is enabled but no defaultAuthenticationProvider is set",
                ("enableAuthentication",),
                hint="set defaultAuthenticationProvider or enableAuthentication: false",
            )
        elif types and provider not in types:
            r.error(
                "REF-08",
                f"defaultAuthenticationProvider {provider!r} matches no "
                "authentication providerType",
                ("defaultAuthenticationProvider",),
                hint=_suggest(provider, types),
            )
    for i, page in enumerate(app.blankPages):
        if page.targetMenu and page.targetMenu not in N.TARGET_MENUS:
            r.error(
                "CON-08",
                f"unknown targetMenu {page.targetMenu!r}",
                ("blankPages", i, "targetMenu"),
                hint="one of both, side, top",
            )
        if page.targetSpace and page.targetSpace not in N.TARGET_SPACES:
            r.error(
                "CON-08",
                f"unknown targetSpace {page.targetSpace!r}",
                ("blankPages", i, "targetSpace"),
                hint="one of logged, public",
            )
    for i, sc in enumerate(app.serviceConfigurations):
        if sc.apiProtocol and sc.apiProtocol not in N.API_PROTOCOLS:
            r.error(
                "CON-12",
                f"apiProtocol must be http or https, not {sc.apiProtocol!r}",
                ("serviceConfigurations", i, "apiProtocol"),
            )


def _suggest(name: str, choices: Iterable[str]) -> str | None:
    import difflib

    close = difflib.get_close_matches(name, sorted(choices), n=1)
    return f"did you mean {close[0]!r}?" if close else None
