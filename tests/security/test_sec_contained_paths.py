"""Nothing outside the workspace, ever (issue 37, item 3): the one check of a path that comes
from data (a tree index, a state file, a merge, a patch) — ``averos_ci._fs.safe_relpath`` and
``contained`` — and the places that read or write such paths, attacked one by one."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from averos_ci._fs import UnsafePath, contained, is_safe_relpath, safe_relpath
from averos_ci.errors import ExitCode, StateError
from averos_ci.execute.regen.merge import compute_patch
from averos_ci.execute.regen.patching import apply_patch
from averos_ci.execute.regen.tree import PristineStore, Tree
from averos_ci.plan.patch import CodePatch
from averos_ci.state.store import FileStateStore

UNSAFE = [
    "",
    "/etc/passwd",
    "C:/x",
    "c:x",
    "a\\b",
    "..\\x",
    "../x",
    "a/../../x",
    "a/./b",
    "./a",
    "a//b",
    "a/",
    ".git/hooks/pre-commit",
    "src/.GIT/config",
    "a\0b",
    "..",
]
SAFE = ["a", "src/app/x.ts", ".github/workflows/ci.yml", "a/.gitignore", "x..y/z", "...", "a b"]


@pytest.mark.parametrize("rel", UNSAFE)
def test_an_unsafe_path_is_refused_with_its_reason(rel: str, tmp_path: Path) -> None:
    assert not is_safe_relpath(rel)
    with pytest.raises(UnsafePath) as info:
        safe_relpath(rel)
    assert info.value.exit_code == ExitCode.INVALID
    assert repr(rel) in info.value.message
    with pytest.raises(UnsafePath):
        contained(tmp_path, rel)


@pytest.mark.parametrize("rel", SAFE)
def test_a_plain_relative_path_is_kept(rel: str, tmp_path: Path) -> None:
    assert safe_relpath(rel) == rel
    assert contained(tmp_path, rel) == tmp_path / rel


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab./\\:\0gGiItT")), max_size=12))
def test_whatever_is_accepted_stays_below_the_root(rel: str) -> None:
    root = Path("/nonexistent-root-for-the-property")
    if not is_safe_relpath(rel):
        return
    joined = os.path.normpath(root / rel)
    assert Path(joined).is_relative_to(root) and Path(joined) != root
    assert ".git" not in [p.lower() for p in Path(rel).parts]
    assert os.path.normpath(rel) == rel  # normalized: what is checked is what is used


def test_a_symlinked_parent_folder_or_file_pointing_out_is_refused(tmp_path: Path) -> None:
    root, outside = tmp_path / "ws", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (outside / "secret.txt").write_text("secret\n", encoding="utf-8")
    (root / "linked").symlink_to(outside, target_is_directory=True)
    (root / "file.txt").symlink_to(outside / "secret.txt")
    (root / "inside").mkdir()
    (root / "alias").symlink_to(root / "inside", target_is_directory=True)
    for rel in ("linked/secret.txt", "linked/new.txt", "file.txt"):
        with pytest.raises(UnsafePath, match="resolves outside"):
            contained(root, rel)
    assert contained(root, "alias/x.txt") == root / "alias" / "x.txt"  # a link inside: fine


def test_a_patch_leaving_the_workspace_writes_nothing(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (tmp_path / "outside").mkdir()
    (root / "out").symlink_to(tmp_path / "outside", target_is_directory=True)
    for evil in ("../escaped.txt", "out/escaped.txt", ".git/hooks/post-checkout"):
        patch = CodePatch(contents={"a.txt": b"a\n", evil: b"evil\n"})
        with pytest.raises(UnsafePath):
            apply_patch(patch, root)
        assert not (root / "a.txt").exists()  # refused before the first write
    assert not list(tmp_path.rglob("escaped.txt"))


def test_a_merge_never_reads_a_file_outside_the_workspace(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (tmp_path / "secret.txt").write_text("SECRET\n", encoding="utf-8")
    new = Tree({"gen/a.ts": b"export const a = 1;\n"}, {})
    base = Tree({"../secret.txt": b"export const a = 1;\n"}, {})
    with pytest.raises(UnsafePath):
        compute_patch(base, new, root)


def test_a_planted_index_naming_an_outside_path_is_not_loaded(tmp_path: Path) -> None:
    store = PristineStore(tmp_path / "pristine")
    store.save("k", Tree({"a.txt": b"a\n"}, {"n": ("a.txt",)}))
    index = tmp_path / "pristine" / "trees" / "k.json"
    assert store.load("k") is not None
    doc = json.loads(index.read_text(encoding="utf-8"))
    digest = doc["files"]["a.txt"]
    for evil in ("../x", "/etc/x", ".git/config", "a\\b"):
        index.write_text(json.dumps({**doc, "files": {evil: digest}}), encoding="utf-8")
        assert store.load("k") is None, evil
    # a digest that is a path: never read
    index.write_text(json.dumps({**doc, "files": {"a.txt": "../../../etc/passwd"}}), "utf-8")
    assert store.load("k") is None
    # a node naming a file the tree does not hold
    index.write_text(json.dumps({**doc, "nodes": {"n": ["../x"]}}), encoding="utf-8")
    assert store.load("k") is None


def test_a_state_naming_an_outside_path_is_refused_with_its_location(tmp_path: Path) -> None:
    state = {
        "formatVersion": 4,
        "manifest": {},
        "manifestHash": "0" * 64,
        "serial": 1,
        "lineage": "l",
        "builtAt": "2026-01-01T00:00:00Z",
        "nodeStates": {},
        "pristine": {"key": "k", "files": {"../../runner-secret.txt": "0" * 64}},
    }
    path = tmp_path / "state.json"
    for field in ("pristine", "workspace"):
        doc = dict(state)
        if field == "workspace":
            doc.pop("pristine")
            doc["workspace"] = {"nodes": {"n": {"files": {"/etc/passwd": "0" * 64}}}}
        path.write_text(json.dumps(doc), encoding="utf-8")
        with pytest.raises(StateError) as info:
            FileStateStore(path).load()
        assert "refused the path" in str(info.value), field
        assert str(path) in str(info.value)
