"""Normalized manifest -> elements: one per plan node, with identity, args and dependencies.

What can change after creation is declared here, per element kind: ``conflict_fields`` are the
args no Averos schematic can change on an existing element (the README's update/conflict table).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, NamedTuple

from averos_ci.plan.model import Phase
from averos_ci.plan.sensitive import SensitiveRules

ALL = frozenset({"*"})  # every change is a conflict


class Element(NamedTuple):  # immutable, no __dict__, and built fast: 120,000+ on large plans
    key: str  # diff identity (the name path); equal to the node id except for the application
    id: str  # node id
    kind: str
    phase: Phase
    command: str
    args: dict[str, Any]
    deps: tuple[str, ...] = ()
    order: tuple[str, int] = ("", 0)  # tie-break before the id (keeps member order)
    conflict_fields: frozenset[str] = frozenset()
    rename_of: str | None = None  # key of the element this one was renamed from
    ignore_on_rename: frozenset[str] = frozenset()
    # args shown as "(sensitive)" in every rendering (credentials; averos_ci.plan.sensitive)
    sensitive_fields: frozenset[str] = frozenset()


def _clean(d: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in d.items() if v is not None}


def _add_optional(args: dict[str, Any], member: dict[str, Any], *keys: str) -> None:
    """``_clean`` of ``args`` with ``member``'s optional ``keys`` added, in place (~100,000
    members on large manifests: most have none of them)."""
    if None in args.values():  # a malformed state's member
        cleaned = _clean(args)
        args.clear()
        args.update(cleaned)
    for key in keys:
        value = member.get(key)
        if value is not None:
            args[key] = value


def elements(
    manifest: dict[str, Any], *, sensitive: SensitiveRules | None = None
) -> dict[str, Element]:
    """The manifest's elements; args matching the ``sensitive`` rules (the built-in ones by
    default) are flagged, so every rendering masks them."""
    rules = sensitive or _DEFAULT_RULES
    out: dict[str, Element] = {}
    for e in _iter_elements(manifest):
        secret = rules.fields(e.id, e.args)
        out[e.key] = e._replace(sensitive_fields=secret) if secret else e
    return out


_DEFAULT_RULES = SensitiveRules()


_SIMPLE_CONFLICTS = frozenset({"memberType", "listOfEnumValues", "memberTag"})
_SIMPLE_RENAME_IGNORES = frozenset({"ename", "mname"})
_COMPOSITE_RENAME_IGNORES = frozenset({"ename", "memberName"})

_USE_CASE_COMMANDS = {
    "CRUD": "advanced-crud",
    "Create_Entity": "create-entity-uc",
    "Search_Entity": "search-entity-uc",
}


def _iter_elements(m: dict[str, Any]) -> Iterator[Element]:
    app = m["application"]
    app_id = f"application:{app['applicationName']}"
    yield Element(
        "application",
        app_id,
        "application",
        Phase.APPLICATION,
        "ng-add",
        _clean(app),
        conflict_fields=frozenset({"applicationName"}),
    )
    root = (app_id,)
    entities: dict[str, dict[str, Any]] = m["entities"]
    field_ids: dict[str, list[str]] = {}
    field_id_by_name: dict[str, dict[str, str]] = {}
    for name, ent in entities.items():
        ent_id = f"entity:{name}"
        old_entity = ent.get("renamedFrom")
        yield Element(
            ent_id,
            ent_id,
            "entity",
            Phase.ENTITY,
            "averos-entity",
            _clean({"name": name, "sname": ent.get("sname")}),
            root,
            conflict_fields=frozenset({"sname"}),
            rename_of=f"entity:{old_entity}" if old_entity else None,
            ignore_on_rename=frozenset({"name"}),
        )
        ids = field_ids.setdefault(name, [])
        by_name = field_id_by_name.setdefault(name, {})
        for index, mem in enumerate(ent["members"]):
            simple = mem["nature"] == "simple"
            phase = "simple-field" if simple else "composite-field"
            mid = f"{phase}:{name}:{mem['name']}"
            ids.append(mid)
            by_name[mem["name"]] = mid
            old_member = mem.get("renamedFrom") or (mem["name"] if old_entity else None)
            rename_of = f"{phase}:{old_entity or name}:{old_member}" if old_member else None
            if simple:
                args = {"ename": name, "mname": mem["name"], "memberType": mem["memberType"]}
                _add_optional(args, mem, "listOfEnumValues", "memberTag")
                yield Element(
                    mid,
                    mid,
                    "simple-member",
                    Phase.SIMPLE_FIELD,
                    "add-simple-member",
                    args,
                    (ent_id,),
                    (name, index),
                    _SIMPLE_CONFLICTS,
                    rename_of,
                    _SIMPLE_RENAME_IGNORES,
                )
            else:
                args = {
                    "ename": name,
                    "fename": mem["fename"],
                    "memberName": mem["name"],
                    "fieldRelationType": mem["fieldRelationType"],
                }
                _add_optional(args, mem, "deleteStrategy")
                deps = tuple(sorted({ent_id, f"entity:{mem['fename']}"}))
                yield Element(
                    mid,
                    mid,
                    "composite-member",
                    Phase.COMPOSITE_FIELD,
                    "add-composite-member",
                    args,
                    deps,
                    (name, index),
                    ALL,
                    rename_of,
                    _COMPOSITE_RENAME_IGNORES,
                )
    for name, fm in m["fieldMappings"].items():
        ename = fm["ename"]
        mapped = {f"entity:{ename}"} | {
            field_id_by_name[ename][e["fieldKey"]]
            for e in fm["mapping"]
            if e["fieldKey"] in field_id_by_name.get(ename, {})
        }
        yield Element(
            f"mapping:{name}",
            f"mapping:{name}",
            "field-mapping",
            Phase.MAPPING,
            "field-mapping",
            dict(fm),
            tuple(sorted(mapped)),
        )
    sname_owner = {ent["sname"]: n for n, ent in entities.items() if ent.get("sname")}
    for name, sc in m["serviceConfigurations"].items():
        owner = sname_owner.get(sc["id"])
        deps = (f"entity:{owner}",) if owner else root
        yield Element(
            f"service-config:{name}",
            f"service-config:{name}",
            "service-configuration",
            Phase.SERVICE_CONFIG,
            "service-configuration",
            dict(sc),
            deps,
        )
    for name, uc in m["useCases"].items():
        ename = uc["ename"]
        deps = (f"entity:{ename}", *field_ids.get(ename, []))
        yield Element(
            f"use-case:{name}",
            f"use-case:{name}",
            "use-case",
            Phase.USE_CASE,
            _USE_CASE_COMMANDS[uc["useCaseType"]],
            {"name": name, "ename": ename},
            tuple(sorted(deps)),
            conflict_fields=ALL,
        )
    for name, page in m["blankPages"].items():
        yield Element(
            f"page:{name}",
            f"page:{name}",
            "page",
            Phase.PAGE,
            "create-page",
            _clean(dict(page)),
            root,
            conflict_fields=ALL,
        )
    for name, provider in m["authentication"].items():
        yield Element(
            f"auth:{name}",
            f"auth:{name}",
            "authentication-provider",
            Phase.AUTH,
            "authentication-provider",
            dict(provider),
            root,
        )
    if m.get("httpAuthConfig") is not None:
        yield Element(
            "auth:http-auth-config",
            "auth:http-auth-config",
            "http-auth-config",
            Phase.AUTH,
            "http-auth-config",
            dict(m["httpAuthConfig"]),
            root,
        )
    for code, entries in m["languages"].items():
        lang_id = f"translation:{code}"
        yield Element(
            lang_id,
            lang_id,
            "language",
            Phase.TRANSLATION,
            "add-language",
            {"languageCode": code},
            root,
        )
        for locale_id, entry in entries.items():
            eid = f"translation-entry:{code}:{locale_id}"
            yield Element(
                eid,
                eid,
                "translation-entry",
                Phase.TRANSLATION_ENTRY,
                "add-translation-entry",
                {"lang": code, "key": locale_id, "value": entry["value"]},
                (lang_id,),
            )
