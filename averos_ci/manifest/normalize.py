"""Normalized manifest: the order-independent form that is diffed, hashed and stored in state.

Lists whose order carries no meaning become mappings keyed by name; member order inside an
entity is kept (it is the order fields are generated, so it shows in the views).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from averos_ci.manifest.shape import FIELDS

if TYPE_CHECKING:
    from averos_ci.manifest.schema import Application

NORMALIZED_VERSION = 1


def _drop_none(d: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in d.items() if v is not None}


def _declared(obj: Any, model: str) -> dict[str, Any]:
    """``obj.model_dump(exclude_none=True)`` without its unknown keys, for the pydantic model
    and the plain :class:`~averos_ci.manifest.shape.Shape` alike (scalar and list fields)."""
    out = {}
    for name in FIELDS[model]:
        value = getattr(obj, name)
        if value is not None:
            out[name] = list(value) if isinstance(value, list) else value
    return out


def _member(m: Any) -> dict[str, Any]:
    # What ``_drop_none`` of the full dict gives, built directly (100,000 members on large
    # manifests): the names, type and relation are required strings, never None.
    out: dict[str, Any]
    if m.memberNature == "simple":
        out = {"nature": "simple", "name": m.mname, "memberType": m.memberType}
        if m.memberType == "enumeration":
            out["listOfEnumValues"] = ",".join(
                v.strip() for v in (m.listOfEnumValues or "").split(",")
            )
        if m.memberTag:
            out["memberTag"] = m.memberTag
    else:
        out = {
            "nature": "composite",
            "name": m.memberName,
            "fename": m.fename,
            "fieldRelationType": m.fieldRelationType,
        }
        if m.deleteStrategy:
            out["deleteStrategy"] = m.deleteStrategy
    if m.renamedFrom is not None:
        out["renamedFrom"] = m.renamedFrom
    return out


def normalize(app: Application, members: dict[tuple[int, int], Any]) -> dict[str, Any]:
    entities: dict[str, Any] = {}
    for ei, e in enumerate(app.entities):
        entities[e.name] = _drop_none(
            {
                "name": e.name,
                "sname": e.sname or None,
                "renamedFrom": e.renamedFrom,
                "members": [_member(members[(ei, mi)]) for mi in range(len(e.members))],
            }
        )
    http: Any = app.httpAuthConfig
    if http is not None:  # a Shape has no unknown keys; a model keeps them (model_dump)
        dump = getattr(http, "model_dump", None)
        http = dump(exclude_none=True) if dump is not None else _declared(http, "HttpAuthConfig")
    return {
        "normalizedVersion": NORMALIZED_VERSION,
        "application": {
            "applicationName": app.applicationName,
            "description": app.description,
            "defaultLanguageCode": app.defaultLanguageCode or "en",
            "enableAuthentication": bool(app.enableAuthentication),
            "enableExternalEntityMapping": bool(app.enableExternalEntityMapping),
            "defaultAuthenticationProvider": app.defaultAuthenticationProvider or None,
        },
        "httpAuthConfig": http,
        "entities": entities,
        "serviceConfigurations": {
            s.name: _declared(s, "ServiceConfiguration") for s in app.serviceConfigurations
        },
        "useCases": {
            u.name: {"name": u.name, "ename": u.ename, "useCaseType": u.useCaseType}
            for u in app.useCases
        },
        "blankPages": {
            p.name: {
                "name": p.name,
                "updateRouteMenu": bool(p.updateRouteMenu),
                "targetMenu": p.targetMenu or None,
                "space": p.targetSpace or None,
            }
            for p in app.blankPages
        },
        "fieldMappings": {
            f.name: {
                "name": f.name,
                "ename": f.ename,
                "mapping": sorted(
                    ({"fieldKey": m.fieldKey, "mapTo": m.mapTo} for m in f.mapping),
                    key=lambda m: m["fieldKey"],
                ),
            }
            for f in app.fieldMappings
        },
        "authentication": {
            a.name: {
                "name": a.name,
                "providerType": a.providerType,
                "config": {c.key: c.value for c in a.config},
            }
            for a in app.authentication
        },
        "languages": {
            lang.languageCode: {
                t.localeID: {"value": t.localeValue, "targetEntity": t.targetEntity}
                for t in lang.translationEntries
            }
            for lang in app.languages
        },
    }
