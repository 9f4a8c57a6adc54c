"""The translation built-in edit and the undo journal (configuration edits:
test_angular_runtime_config.py)."""

from __future__ import annotations

from pathlib import Path

from averos_ci.execute.adapters.angular import edits
from averos_ci.execute.adapters.angular.driver import journal
from averos_ci.execute.adapters.angular.writes import write_files


def test_translation_value_is_set_the_way_the_schematic_writes_it(tmp_path: Path) -> None:
    i18n = tmp_path / "src/assets/i18n"
    i18n.mkdir(parents=True)
    (i18n / "fr.json").write_text('{"todotask.status":"Etat","app.ok":"OK"}')
    args = {"lang": "fr", "key": "ToDoTask.Status", "value": "Statut"}
    edited = edits.translation_value(tmp_path, args)
    assert edited.files == {"src/assets/i18n/fr.json": '{"todotask.status":"Statut","app.ok":"OK"}'}
    mutation = write_files(tmp_path, edited.files, dry_run=True, journal=None)
    assert mutation.updated == ("src/assets/i18n/fr.json",)
    write_files(tmp_path, edited.files, dry_run=False, journal=None)
    assert edits.translation_value(tmp_path, args).files == {}
    assert edits.translation_value(tmp_path, {**args, "lang": "de"}).files == {}


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
