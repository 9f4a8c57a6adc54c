"""Hypothesis strategies: valid raw (flat) manifests, and shuffles that keep their meaning."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import strategies as st

ENTITY_POOL = ["Order", "Customer", "Invoice", "Product", "Shipment", "Review"]
MEMBER_POOL = ["code", "label", "amount", "dueDate", "notes", "active", "rank", "kind"]
LANGUAGES = ["en", "fr", "de", "es", "nl"]
LOCALE_IDS = ["menu.home", "menu.orders", "order.code", "order.kind.NEW", "title", "x-y_z"]
PLAIN_TYPES = ["string", "number", "boolean", "date", "textarea", "password", "phone"]
USE_CASE_TYPES = ["CRUD", "Create_Entity", "Search_Entity"]

# Lists whose order carries no meaning (members are generated in order: never shuffled).
UNORDERED_LISTS = {
    "entities",
    "useCases",
    "serviceConfigurations",
    "languages",
    "translationEntries",
    "fieldMappings",
    "blankPages",
    "authentication",
    "mapping",
    "services",
    "config",
}


@st.composite
def manifests(draw: st.DrawFn) -> dict[str, Any]:
    names = draw(st.lists(st.sampled_from(ENTITY_POOL), min_size=1, max_size=4, unique=True))
    entities = []
    service_configs = []
    for name in names:
        members: list[dict[str, Any]] = []
        tagged = False
        for mname in draw(st.lists(st.sampled_from(MEMBER_POOL), max_size=4, unique=True)):
            if draw(st.integers(0, 4)) == 0:
                members.append(
                    {
                        "memberNature": "composite",
                        "ename": name,
                        "fename": draw(st.sampled_from(names)),
                        "memberName": mname,
                        "fieldRelationType": draw(
                            st.sampled_from(["OneToOne", "OneToMany", "ManyToOne"])
                        ),
                        "deleteStrategy": draw(
                            st.sampled_from(["DELETE_CHILDREN", "KEEP_CHILDREN", "NULLIFY"])
                        ),
                    }
                )
                continue
            mtype = draw(st.sampled_from([*PLAIN_TYPES, "enumeration"]))
            member: dict[str, Any] = {
                "memberNature": "simple",
                "ename": name,
                "mname": mname,
                "memberType": mtype,
            }
            if mtype == "enumeration":
                member["listOfEnumValues"] = ",".join(
                    draw(
                        st.lists(
                            st.sampled_from(["New", "Open", "Closed", "Done"]),
                            min_size=1,
                            max_size=3,
                            unique=True,
                        )
                    )
                )
            elif mtype == "string" and not tagged and draw(st.booleans()):
                member["memberTag"] = "ID"
                tagged = True
            members.append(member)
        entity: dict[str, Any] = {"name": name, "members": members}
        if draw(st.booleans()):
            entity["sname"] = f"{name}Service"
            service_configs.append(
                {
                    "name": f"{name}ServiceConfiguration",
                    "id": f"{name}Service",
                    "type": "service",
                    "apiHost": "127.0.0.1",
                    "apiPort": draw(st.integers(1, 65535)),
                    "apiProtocol": draw(st.sampled_from(["http", "https"])),
                }
            )
        entities.append(entity)
    use_cases = [
        {"name": f"{e['name']}{t.replace('_', '')}", "ename": e["name"], "useCaseType": t}
        for e in entities
        for t in draw(st.lists(st.sampled_from(USE_CASE_TYPES), max_size=2, unique=True))
    ]
    mappings = []
    for e in entities:
        simple = [m["mname"] for m in e["members"] if m["memberNature"] == "simple"]
        if simple and draw(st.booleans()):
            keys = draw(
                st.lists(st.sampled_from([*simple, "_entityCreatedAt"]), min_size=1, unique=True)
            )
            mappings.append(
                {
                    "name": f"{e['name']}Mapping",
                    "ename": e["name"],
                    "mapping": [{"fieldKey": k, "mapTo": f"_{k}"} for k in keys],
                }
            )
    languages = [
        {
            "languageCode": code,
            "translationEntries": [
                {"localeID": lid, "localeValue": draw(st.text(max_size=12))}
                for lid in draw(st.lists(st.sampled_from(LOCALE_IDS), max_size=4, unique=True))
            ],
        }
        for code in draw(st.lists(st.sampled_from(LANGUAGES), max_size=3, unique=True))
    ]
    pages = [
        {"name": p, "updateRouteMenu": True, "targetMenu": "side", "targetSpace": "public"}
        for p in draw(st.lists(st.sampled_from(["AboutPage", "HelpPage"]), unique=True))
    ]
    raw: dict[str, Any] = {
        "applicationName": "ShopApp",
        "defaultLanguageCode": languages[0]["languageCode"] if languages else "en",
        "enableAuthentication": False,
        "entities": entities,
        "serviceConfigurations": service_configs,
        "useCases": use_cases,
        "fieldMappings": mappings,
        "languages": languages,
        "blankPages": pages,
    }
    if draw(st.booleans()):
        raw["enableAuthentication"] = True
        raw["defaultAuthenticationProvider"] = "dummy"
        raw["authentication"] = [
            {
                "name": "DummyAuthProvider",
                "providerType": "dummy",
                "config": [{"key": "a", "value": "1"}, {"key": "b", "value": "2"}],
            },
            {"name": "OtherAuthProvider", "providerType": "keycloak", "config": []},
        ]
        raw["httpAuthConfig"] = {"tokenHeader": "Authorization", "tokenPrefix": "Bearer"}
    return raw


def shuffled(value: Any, rng: random.Random, key: str | None = None) -> Any:
    """A copy with every mapping's key order and every unordered list shuffled."""
    if isinstance(value, dict):
        items = list(value.items())
        rng.shuffle(items)
        return {k: shuffled(v, rng, k) for k, v in items}
    if isinstance(value, list):
        out = [shuffled(v, rng) for v in value]
        if key in UNORDERED_LISTS:
            rng.shuffle(out)
        return out
    return value
