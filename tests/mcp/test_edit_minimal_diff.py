"""edit_manifest changes only the lines the patch changes: the serializer's normalizations
(``{ a: b }`` spacing, float digits) never reach the file."""

from __future__ import annotations

import shutil
from pathlib import Path

from averos_ci.mcp.edit import edit_manifest
from averos_ci.mcp.workspace import Workspace
from tests.conftest import EXAMPLE_DIR, GOLDEN_MANIFEST


def _changed_lines(before: str, after: str) -> list[tuple[str, str]]:
    old, new = before.splitlines(), after.splitlines()
    assert len(old) == len(new)
    return [(a, b) for a, b in zip(old, new, strict=True) if a != b]


def test_designer_export_json_changes_one_line(tmp_path: Path) -> None:
    path = tmp_path / "todoapp-manifest.json"
    shutil.copy(GOLDEN_MANIFEST, path)
    before = path.read_text()
    patch = [{"op": "replace", "path": "/project/averosApplication/description", "value": "ToDo"}]
    out = edit_manifest(Workspace.open(tmp_path), path=path.name, patch=patch)
    assert _changed_lines(before, path.read_text()) == [
        (
            '\t\t\t"description": "ToDo Applivation made by Averos Framework",',
            '\t\t\t"description": "ToDo",',
        )
    ]
    assert out["diff"].count("\n-\t") == 1 and out["diff"].count("\n+\t") == 1
    assert out["plan"]["diff"]["toAdd"]  # nothing applied yet: every element is new


def test_yaml_flow_mappings_keep_their_spacing(tmp_path: Path) -> None:
    path = tmp_path / "todoapp.manifest.yaml"
    shutil.copy(EXAMPLE_DIR / "todoapp.manifest.yaml", path)
    before = path.read_text()
    assert (
        "      - { localeID: todotask.name, localeValue: Name, targetEntity: ToDoTask }\n" in before
    )
    pointer = "/languages/0/translationEntries/0/localeValue"
    edit_manifest(
        Workspace.open(tmp_path),
        path=path.name,
        patch=[{"op": "replace", "path": pointer, "value": "Label"}],
    )
    assert _changed_lines(before, path.read_text()) == [
        (
            "      - { localeID: todotask.name, localeValue: Name, targetEntity: ToDoTask }",
            "      - {localeID: todotask.name, localeValue: Label, targetEntity: ToDoTask}",
        )
    ]


def test_an_entry_added_among_flow_mappings_is_one_too(tmp_path: Path) -> None:
    path = tmp_path / "todoapp.manifest.yaml"
    shutil.copy(EXAMPLE_DIR / "todoapp.manifest.yaml", path)
    before = path.read_text().splitlines(keepends=True)
    entry = {"localeID": "todotask.due", "localeValue": "Due", "targetEntity": "ToDoTask"}
    patch = [{"op": "add", "path": "/languages/0/translationEntries/1", "value": entry}]
    edit_manifest(Workspace.open(tmp_path), path=path.name, patch=patch)
    after = path.read_text().splitlines(keepends=True)
    added = "      - {localeID: todotask.due, localeValue: Due, targetEntity: ToDoTask}\n"
    index = before.index(
        "      - { localeID: todotask.name, localeValue: Name, targetEntity: ToDoTask }\n"
    )
    assert after == [*before[: index + 1], added, *before[index + 1 :]]
