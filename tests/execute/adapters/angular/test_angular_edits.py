"""Built-in edits (no schematic in @wiforge/averos 1.4.x) and the undo journal."""

from __future__ import annotations

import json
from pathlib import Path

from averos_ci.execute.adapters.angular import edits, journal
from averos_ci.execute.adapters.angular.writes import write_files

SERVICE = {
    "name": "ToDoTaskServiceConfiguration",
    "id": "ToDoTaskService",
    "type": "service",
    "apiHost": "127.0.0.1",
    "apiPort": 3333,
    "apiProtocol": "http",
    "apiEndPoint": "/api/todotasks",
    "apiHTTPQueryBuilder": "mongodb",
}


def _apply(root: Path, files: dict[str, str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    mutation = write_files(root, files, dry_run=False, journal=journal.Journal(root))
    journal.clear(root)
    return mutation.created, mutation.updated


def test_edits_are_idempotent_upserts(tmp_path: Path) -> None:
    assert _apply(tmp_path, edits.service_configuration(tmp_path, SERVICE)) == (
        (edits.ENV_CONFIG,),
        (),
    )
    first = (tmp_path / edits.ENV_CONFIG).read_bytes()
    assert _apply(tmp_path, edits.service_configuration(tmp_path, SERVICE)) == ((), ())
    assert (tmp_path / edits.ENV_CONFIG).read_bytes() == first
    changed = {**SERVICE, "apiPort": 4444}
    assert _apply(tmp_path, edits.service_configuration(tmp_path, changed)) == (
        (),
        (edits.ENV_CONFIG,),
    )
    doc = json.loads((tmp_path / edits.ENV_CONFIG).read_text())
    assert doc["serviceConfigurations"]["ToDoTaskServiceConfiguration"]["apiPort"] == 4444
    assert len(doc["serviceConfigurations"]) == 1


def test_entity_config_collects_mappings_tags_and_strategies(tmp_path: Path) -> None:
    _apply(
        tmp_path,
        edits.field_mapping(
            tmp_path,
            {
                "name": "ToDoTaskMapping",
                "ename": "ToDoTask",
                "mapping": [{"fieldKey": "taskId", "mapTo": "_id"}],
            },
        ),
    )
    _apply(
        tmp_path,
        edits.member_tag(tmp_path, {"ename": "ToDoTask", "mname": "taskId", "memberTag": "ID"}),
    )
    _apply(
        tmp_path,
        edits.delete_strategy(
            tmp_path,
            {
                "ename": "ToDoArea",
                "fename": "ToDoTask",
                "memberName": "toDoTasks",
                "deleteStrategy": "DELETE_CHILDREN",
            },
        ),
    )
    doc = json.loads((tmp_path / edits.ENTITY_CONFIG).read_text())
    assert doc["entities"]["ToDoTask"] == {
        "fieldMappings": {"ToDoTaskMapping": {"taskId": "_id"}},
        "memberTags": {"taskId": "ID"},
    }
    assert doc["entities"]["ToDoArea"]["deleteStrategies"] == {"toDoTasks": "DELETE_CHILDREN"}
    assert edits.member_tag(tmp_path, {"ename": "X", "mname": "y"}) == {}


def test_auth_edits(tmp_path: Path) -> None:
    _apply(
        tmp_path,
        edits.authentication_provider(
            tmp_path,
            {
                "name": "Dummy",
                "providerType": "dummy",
                "config": [{"key": "networkDelay", "value": "0"}],
            },
        ),
    )
    _apply(tmp_path, edits.http_auth_config(tmp_path, {"tokenHeader": "Authorization"}))
    doc = json.loads((tmp_path / edits.ENV_CONFIG).read_text())
    assert doc["authentication"]["providers"]["Dummy"]["config"] == {"networkDelay": "0"}
    assert doc["authentication"]["httpAuthConfig"] == {"tokenHeader": "Authorization"}


def test_dry_run_writes_nothing(tmp_path: Path) -> None:
    files = edits.service_configuration(tmp_path, SERVICE)
    mutation = write_files(tmp_path, files, dry_run=True, journal=None)
    assert mutation.created == (edits.ENV_CONFIG,)
    assert not any(tmp_path.iterdir())


def test_rollback_restores_an_interrupted_node(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.ts").write_text("original")
    undo = journal.Journal(tmp_path, prefix="d")
    undo.save("src/a.ts")
    (tmp_path / "src" / "a.ts").write_text("half-written")
    undo.save("src/new/b.ts")
    (tmp_path / "src" / "new").mkdir()
    (tmp_path / "src" / "new" / "b.ts").write_text("created")
    # the process dies here; the next run starts with a rollback
    assert journal.rollback(tmp_path) == ["src/a.ts", "src/new/b.ts"]
    assert (tmp_path / "src" / "a.ts").read_text() == "original"
    assert not (tmp_path / "src" / "new").exists()
    assert not (tmp_path / ".averos-ci").exists()
    assert journal.rollback(tmp_path) == []


def test_snapshot_rollback_deletes_unknown_files(tmp_path: Path) -> None:
    (tmp_path / "keep.txt").write_text("k")
    journal.Journal(tmp_path).snapshot({"keep.txt": "x"})
    (tmp_path / "keep.txt").write_text("changed")
    (tmp_path / "stray.txt").write_text("s")
    journal.rollback(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.txt"]
    assert (tmp_path / "keep.txt").read_text() == "k"
