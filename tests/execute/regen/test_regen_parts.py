"""The parts of regeneration: the mock's files, the pristine store, the per-file merge and the
patch renderings."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from averos_ci.execute.regen.merge import compute_patch, merge_file
from averos_ci.execute.regen.tree import PristineStore, Tree, snapshot, tree_key
from averos_ci.plan.patch import FileStatus
from averos_ci.plan.patch_render import render_patch_markdown, render_patch_text
from tests.execute.regen.regen_project import Project, library


def test_the_default_mock_still_generates_nothing(tmp_path: Path) -> None:
    project = Project(tmp_path / "p", library())
    config = json.loads(project.config.read_text())
    config["adapterOptions"] = {}
    project.config.write_text(json.dumps(config))
    assert project.cli("run") == 0
    assert project.files() == {}
    assert "pristine" not in project.state()  # the engine's node-by-node path, as before


def test_write_files_is_deterministic_and_shaped_like_an_application(tmp_path: Path) -> None:
    one, two = Project(tmp_path / "one", library()), Project(tmp_path / "two", library())
    assert one.cli("run") == 0 and two.cli("run") == 0
    assert one.files() == two.files()
    files = one.files()
    assert files["src/app/model/book.ts"] == (
        b"export class Book {\n  bookId?: string; // ID\n  title?: string;\n"
        b"  pages?: number;\n  shelf?: Shelf; // ManyToOne\n}\n"
    )
    assert b"{ path: 'search-shelf', entity: 'Shelf' }" in files["src/app/app.routes.ts"]
    assert files["src/assets/i18n/en.txt"] == b"book.title=Title\nshelf.label=Label\n"


def test_the_pristine_store_is_content_addressed_and_refuses_damage(tmp_path: Path) -> None:
    store = PristineStore(tmp_path / "pristine")
    tree = Tree({"a.txt": b"same\n", "b/c.txt": b"same\n"}, {"entity:X": ("a.txt",)})
    key = tree_key("m" * 64, {"adapter": "mock"})
    store.save(key, tree)
    assert len(list((tmp_path / "pristine/blobs").rglob("*.*"))) == 0  # no temp files left
    assert len([p for p in (tmp_path / "pristine/blobs").rglob("*") if p.is_file()]) == 1
    loaded = store.load(key)
    assert loaded is not None and loaded.files == tree.files and loaded.nodes == tree.nodes
    doc = json.loads((tmp_path / f"pristine/trees/{key}.json").read_text())
    assert doc["formatVersion"] == 1
    blob = next(p for p in (tmp_path / "pristine/blobs").rglob("*") if p.is_file())
    blob.write_bytes(b"tampered\n")
    assert store.load(key) is None  # regenerated, never trusted
    store.prune(set())
    assert store.load(key) is None and not any((tmp_path / "pristine/blobs").rglob("*/*"))


def test_snapshot_leaves_out_dependencies_and_build_output(tmp_path: Path) -> None:
    for rel in ("src/a.ts", "node_modules/x/index.js", "dist/main.js", ".angular/cache/y"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x\n")
    assert list(snapshot(tmp_path)) == ["src/a.ts"]


def test_merge_file_is_gits_three_way_merge() -> None:
    base = b"a\nb\nc\nd\ne\n"
    ours = b"a\nb (mine)\nc\nd\ne\n"
    merged, conflicted = merge_file(base, ours, b"a\nb\nc\nd\ne (gen)\n")
    assert (merged, conflicted) == (b"a\nb (mine)\nc\nd\ne (gen)\n", False)
    merged, conflicted = merge_file(base, ours, b"a\nb (gen)\nc\nd\ne\n")
    assert conflicted and b"<<<<<<< yours (workspace)\nb (mine)\n" in merged
    assert b"||||||| generated before\nb\n=======\nb (gen)\n>>>>>>> generated now\n" in merged


@pytest.mark.parametrize(
    ("base", "new", "ours", "status", "conflict"),
    [
        (None, b"g\n", None, FileStatus.CREATED, False),
        (b"g\n", None, b"g\n", FileStatus.DELETED, False),
        (b"g\n", None, b"g\nmine\n", FileStatus.KEPT, True),
        (b"g\n", b"h\n", None, FileStatus.CHANGED, True),  # deleted by the user
        (b"g\n", b"h\n", b"g\n", FileStatus.CHANGED, False),
        (None, b"g\n", b"other\n", FileStatus.CREATED, True),  # empty base
    ],
)
def test_each_case_of_the_file_merge(
    tmp_path: Path,
    base: bytes | None,
    new: bytes | None,
    ours: bytes | None,
    status: FileStatus,
    conflict: bool,
) -> None:
    if ours is not None:
        (tmp_path / "f.ts").write_bytes(ours)
    patch = compute_patch(
        Tree({} if base is None else {"f.ts": base}, {}),
        Tree({} if new is None else {"f.ts": new}, {}),
        tmp_path,
    )
    [change] = patch.files
    assert change.status is status and (change.conflict is not None) is conflict


def test_nothing_to_do_when_the_generator_did_not_change_a_file(tmp_path: Path) -> None:
    (tmp_path / "f.ts").write_bytes(b"edited\n")
    tree = Tree({"f.ts": b"g\n", "gone.ts": b"x\n"}, {})
    assert compute_patch(tree, tree, tmp_path).files == ()  # edited and deleted files stay


def test_renderings_show_counts_merges_and_conflict_hunks(tmp_path: Path) -> None:
    (tmp_path / "m.ts").write_bytes(b"a\nb (mine)\nc\n")
    (tmp_path / "k.ts").write_bytes(b"a\nb\n")
    patch = compute_patch(
        Tree({"m.ts": b"a\nb\nc\n", "k.ts": b"a\nb\n"}, {}),
        Tree({"m.ts": b"a\nb (gen)\nc\n", "n.ts": b"new\n"}, {}),
        tmp_path,
    )
    text = render_patch_text(patch)
    assert "Code change: 3 file(s), +3 -2, 1 merge conflict(s):" in text
    assert "  - k.ts (deleted, +0 -2)" in text and "  + n.ts (created, +1 -0)" in text
    assert "  ~ m.ts (changed, +2 -0)  CONFLICT: your edits collide" in text
    assert "Conflict in m.ts:\n    <<<<<<< yours (workspace)\n    b (mine)\n" in text
    md = render_patch_markdown(patch.to_wire())
    assert "`m.ts` (changed, +2 -0; **conflict**: your edits collide" in md
    assert "```diff\n<<<<<<< yours (workspace)\nb (mine)\n" in md
    assert len(render_patch_markdown(patch, budget=200)) <= 200
    assert patch.hash == patch.to_wire()["hash"] and len(patch.hash) == 64
