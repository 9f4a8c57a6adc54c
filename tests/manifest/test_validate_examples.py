"""Issue 2: real manifests validate, through the library and its public API."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import averos_ci.manifest
from averos_ci.manifest import ManifestInvalid, load_manifest, validate_file
from tests.manifest.manifest_samples import EXAMPLE_MANIFEST, GOLDEN_MANIFEST, GOOD_YAML


@pytest.mark.parametrize("path", [GOLDEN_MANIFEST, EXAMPLE_MANIFEST], ids=["golden", "example"])
def test_real_manifests_have_no_errors(path: Path) -> None:
    result = validate_file(path)
    assert [i for i in result.issues if i.is_error] == []
    assert result.valid
    assert result.manifest is not None
    assert result.manifest["application"]["applicationName"] == "ToDoApp"


def test_golden_export_normalizes_its_model() -> None:
    manifest, _ = load_manifest(GOLDEN_MANIFEST)
    raw = json.loads(GOLDEN_MANIFEST.read_text())["project"]["averosApplication"]
    assert sorted(manifest["entities"]) == sorted(e["name"] for e in raw["entities"])
    for entity in raw["entities"]:
        names = [m.get("mname") or m.get("memberName") for m in entity["members"]]
        assert [m["name"] for m in manifest["entities"][entity["name"]]["members"]] == names
    assert sorted(manifest["useCases"]) == sorted(u["name"] for u in raw["useCases"])
    assert sorted(manifest["languages"]) == sorted(
        lang["languageCode"] for lang in raw["languages"]
    )


def test_flat_json_and_yaml_of_the_same_manifest_normalize_equal(tmp_path: Path) -> None:
    from ruamel.yaml import YAML

    data = YAML(typ="safe", pure=True).load(GOOD_YAML)
    yaml_path = tmp_path / "shop.manifest.yaml"
    yaml_path.write_text(GOOD_YAML)
    json_path = tmp_path / "shop.manifest.json"
    json_path.write_text(json.dumps(data))
    wrapped = tmp_path / "shop.designer.json"
    wrapped.write_text(
        json.dumps(
            {"project": {"averosApplication": data}, "diagrams": [], "metadata": {}, "version": "1"}
        )
    )
    results = [validate_file(p) for p in (yaml_path, json_path, wrapped)]
    assert all(r.valid and r.issues == [] for r in results)
    assert results[0].manifest == results[1].manifest == results[2].manifest


def test_load_manifest_raises_with_located_issues(tmp_path: Path) -> None:
    path = tmp_path / "shop.manifest.yaml"
    path.write_text(GOOD_YAML.replace("useCaseType: CRUD", "useCaseType: Everything"))
    with pytest.raises(ManifestInvalid) as info:
        load_manifest(path)
    assert info.value.exit_code == 2
    assert [(i.code, i.line, i.column) for i in info.value.issues] == [("CON-08", 36, 18)]
    assert f"{path}:36:18: error CON-08 " in str(info.value)


def test_name_of_64_characters_is_accepted(tmp_path: Path) -> None:
    path = tmp_path / "shop.manifest.yaml"
    path.write_text(GOOD_YAML.replace("mname: email", "mname: " + "e" * 64))
    assert validate_file(path).valid


def test_public_api_names_exist() -> None:
    for name in averos_ci.manifest.__all__:
        assert hasattr(averos_ci.manifest, name), name
    assert len(set(averos_ci.manifest.__all__)) == len(averos_ci.manifest.__all__)
    assert {"validate_file", "load_manifest", "Issue"} <= set(averos_ci.manifest.__all__)
