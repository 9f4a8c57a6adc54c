"""The mock backend's sample records: a valid value for every member type, listed enum values,
relations to records that exist, the same records for the same manifest."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from averos_ci.manifest import load_manifest
from averos_ci.manifest.names import MEMBER_TYPES
from averos_ci.preview import sample_records
from averos_ci.preview.samples import RECORDS_PER_ENTITY

SHOP = Path(__file__).parent / "data" / "shop.manifest.yaml"


@pytest.fixture
def manifest() -> dict[str, Any]:
    loaded, _ = load_manifest(SHOP)
    return loaded


def _valid(member_type: str, value: Any) -> bool:
    if member_type == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    if member_type == "boolean":
        return isinstance(value, bool)
    if member_type == "date":
        return isinstance(value, str) and bool(datetime.fromisoformat(value))
    return isinstance(value, str) and bool(value.strip())


def test_every_member_type_gets_a_valid_value(manifest: dict[str, Any]) -> None:
    customers = sample_records(manifest)["Customer"]
    members = {m["name"]: m for m in manifest["entities"]["Customer"]["members"]}
    simple = {n: m["memberType"] for n, m in members.items() if m["nature"] == "simple"}
    assert set(simple.values()) == MEMBER_TYPES  # the fixture covers every type there is
    assert len(customers) == RECORDS_PER_ENTITY
    for record in customers:
        for name, member_type in simple.items():
            assert _valid(member_type, record[name]), (name, record.get(name))
    assert len({r["fullName"] for r in customers}) == len(customers)  # BusinessID: unique


def test_enumerations_take_their_listed_values(manifest: dict[str, Any]) -> None:
    tiers = [r["tier"] for r in sample_records(manifest)["Customer"]]
    assert tiers == ["Gold", "Silver", "Bronze"]


def test_records_have_unique_ids_and_the_id_member_is_the_id(manifest: dict[str, Any]) -> None:
    records = sample_records(manifest)
    for rows in records.values():
        assert len({json.dumps(r["id"]) for r in rows}) == len(rows)
    assert all(r["id"] == r["_id"] for r in records["Customer"])
    assert records["Customer"][0]["customerId"] == records["Customer"][0]["_id"]  # both names


def test_relations_hold_records_that_exist(manifest: dict[str, Any]) -> None:
    records = sample_records(manifest)
    ids = {entity: {r["id"] for r in rows} for entity, rows in records.items()}
    for order in records["Order"]:
        assert order["customer"]["id"] in ids["Customer"]
        assert order["invoice"]["id"] in ids["Invoice"]
        assert order["invoice"] == next(
            i for i in records["Invoice"] if i["id"] == order["invoice"]["id"]
        )
    for customer in records["Customer"]:
        assert customer["orders"], "a OneToMany relation holds at least one record"
        assert {o["id"] for o in customer["orders"]} <= ids["Order"]


def test_the_same_manifest_gives_the_same_records(manifest: dict[str, Any], tmp_path: Path) -> None:
    again = tmp_path / "again.manifest.yaml"
    again.write_bytes(SHOP.read_bytes())
    other, _ = load_manifest(again)
    first = json.dumps(sample_records(manifest), sort_keys=True)
    assert json.dumps(sample_records(other), sort_keys=True) == first
    assert json.dumps(sample_records(manifest), sort_keys=True) == first


def test_without_external_mapping_the_member_names_stay(manifest: dict[str, Any]) -> None:
    plain = {
        **manifest,
        "application": {**manifest["application"], "enableExternalEntityMapping": False},
    }
    customer = sample_records(plain)["Customer"][0]
    assert customer["customerId"] == customer["id"] and "_id" not in customer
