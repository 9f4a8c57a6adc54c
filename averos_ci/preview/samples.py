"""Sample records for the mock backend, generated from the manifest's entity types.

Deterministic: the same manifest gives the same records, byte for byte, so a test (or a person
comparing two screenshots) knows what each page should show. Every record has json-server's
``id``; simple members get a valid value of their ``memberType``; an enumeration takes its
listed values in turn; a composite member holds existing records of its target entity (the
generated model types it as the object, ``Book`` or ``Book[]``, not as a bare id).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import Any

RECORDS_PER_ENTITY = 3

Record = dict[str, Any]

_WORDS = ("Amber", "Birch", "Cedar", "Dune", "Ember", "Fjord", "Granite", "Harbor", "Iris")


def _string(entity: str, member: str, i: int) -> str:
    return f"{_WORDS[i % len(_WORDS)]} {member} {i + 1}"


def _number(entity: str, member: str, i: int) -> int:
    return 100 + 37 * i + len(member)


def _date(entity: str, member: str, i: int) -> str:
    return f"2024-{i % 12 + 1:02d}-{(7 * i) % 28 + 1:02d}T00:00:00.000Z"


_VALUES: dict[str, Callable[[str, str, int], Any]] = {
    "string": _string,
    "number": _number,
    "boolean": lambda entity, member, i: i % 2 == 0,
    "date": _date,
    "textarea": lambda entity, member, i: f"{_string(entity, member, i)}: a longer text.",
    "password": lambda entity, member, i: f"Secret-{i + 1}-{member}",
    "phone": lambda entity, member, i: f"+1 555 01{i + 1:02d}",
}


def enum_values(member: Mapping[str, Any]) -> list[str]:
    raw = str(member.get("listOfEnumValues") or "")
    return [v.strip() for v in raw.split(",") if v.strip()]


def simple_value(entity: str, member: Mapping[str, Any], i: int) -> Any:
    """The ``i``-th sample value of a simple member (unknown types get a string)."""
    name = str(member["name"])
    if member.get("memberType") == "enumeration":
        values = enum_values(member) or ["Value"]
        return values[i % len(values)]
    if member.get("memberTag") == "ID":  # an identifier: unique and readable
        return f"{entity.lower()}-{i + 1}" if member.get("memberType") != "number" else i + 1
    value = _VALUES.get(str(member.get("memberType")), _string)
    return value(entity, name, i)


def _record_id(entity: str, members: list[Mapping[str, Any]], i: int) -> Any:
    for m in members:
        if m.get("nature") == "simple" and m.get("memberTag") == "ID":
            return simple_value(entity, m, i)
    return i + 1


def _base_members(entity: str, i: int) -> Record:
    """What every Averos 1.4 entity has besides the manifest's members (averos-entity)."""
    return {
        "name": f"{entity} {i + 1}",
        "description": f"Sample {entity} {i + 1}, from averos-ci preview",
        "createdAt": _date(entity, "createdAt", i),
    }


def sample_records(
    manifest: Mapping[str, Any], *, count: int = RECORDS_PER_ENTITY
) -> dict[str, list[Record]]:
    """``{entity name: records}`` for a normalized manifest (:func:`load_manifest`'s result).

    With ``enableExternalEntityMapping`` the records also carry the backend's field names
    (``fieldMappings``: ``fieldKey`` -> ``mapTo``, e.g. ``_id``), which the generated model
    may declare besides the member (Averos 1.4.1 declares ``@ID() _id`` and ``taskId``).
    """
    entities: Mapping[str, Any] = manifest.get("entities") or {}
    flat: dict[str, list[Record]] = {}
    for name, entity in entities.items():
        members = list(entity.get("members") or [])
        flat[name] = [
            {
                "id": _record_id(name, members, i),
                **_base_members(name, i),
                **{
                    str(m["name"]): simple_value(name, m, i)
                    for m in members
                    if m.get("nature") == "simple"
                },
            }
            for i in range(count)
        ]
    flat = _mapped(manifest, flat)
    records = copy.deepcopy(flat)
    for name, entity in entities.items():
        for m in entity.get("members") or []:
            if m.get("nature") != "composite" or m.get("fename") not in flat:
                continue
            targets = flat[str(m["fename"])]
            for i, record in enumerate(records[name]):
                if not targets:
                    continue
                if m.get("fieldRelationType") == "OneToMany":
                    record[str(m["name"])] = [copy.deepcopy(t) for t in targets[: 1 + i % 2]]
                else:  # OneToOne, ManyToOne: one existing record
                    record[str(m["name"])] = copy.deepcopy(targets[i % len(targets)])
    return records


def _mapped(
    manifest: Mapping[str, Any], records: dict[str, list[Record]]
) -> dict[str, list[Record]]:
    application = manifest.get("application") or {}
    if not application.get("enableExternalEntityMapping"):
        return records
    for mapping in (manifest.get("fieldMappings") or {}).values():
        renames = {e["fieldKey"]: e["mapTo"] for e in mapping.get("mapping") or []}
        for record in records.get(str(mapping.get("ename")), []):
            for key in [k for k in record if k in renames and k != "id"]:
                record[renames[key]] = record[key]  # both: a runtime maps one or the other
    return records
