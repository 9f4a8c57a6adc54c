"""What the pristine store may and may not decide (issue 37, item 2): the tree of the manifest
being applied is always generated, whatever the store holds under its key; a base tree is
taken from the store only when it is exactly the tree the applied state records (its paths
and their hashes) — otherwise the base is regenerated from the applied manifest."""

from __future__ import annotations

from pathlib import Path

from averos_ci.config import load_config
from averos_ci.execute.adapters.identity import execution_identity
from averos_ci.execute.regen.tree import PristineStore, Tree, tree_key
from averos_ci.manifest.validate import load_manifest
from averos_ci.plan.planner import plan_manifest
from tests.execute.regen.regen_project import Project, clean_generation, library

HANDWRITTEN = b"export const mine = 'written by the user';\n"


def _key(project: Project) -> str:
    config = load_config(project.config)
    manifest, _ = load_manifest(config.manifest_path)
    execution = execution_identity(config)
    return tree_key(
        plan_manifest(manifest, None, execution=execution).plan.manifest_hash, execution
    )


def _store(project: Project) -> PristineStore:
    return PristineStore(project.root / ".averos" / "pristine")


def test_a_tree_planted_under_the_new_manifests_key_is_never_used(tmp_path: Path) -> None:
    project = Project(tmp_path / "p", library(shelf=False))
    assert project.cli("run") == 0
    project.write(library())
    real = clean_generation(tmp_path / "clean", library())
    planted = {**real, "src/app/backdoor.ts": b"export const evil = 1;\n"}
    _store(project).save(_key(project), Tree(planted, {}))
    assert project.cli("run") == 0
    assert project.files() == real  # the generator's tree, not the store's
    assert not project.file("src/app/backdoor.ts").exists()


def test_a_base_tree_unlike_the_state_record_is_regenerated(tmp_path: Path) -> None:
    project = Project(tmp_path / "p", library())
    assert project.cli("run") == 0
    project.file("src/app/mine.ts").write_bytes(HANDWRITTEN)
    record = project.state()["pristine"]
    base = _store(project).load(record["key"])
    assert base is not None and base.hashes() == record["files"]  # the honest store: used
    # planted: the user's own file as if generated before, so "no longer generated" and
    # untouched by the user would delete it
    planted = Tree({**base.files, "src/app/mine.ts": HANDWRITTEN}, dict(base.nodes))
    _store(project).save(record["key"], planted)
    project.write(library(shelf=False))
    assert project.cli("run") == 0
    assert project.file("src/app/mine.ts").read_bytes() == HANDWRITTEN
    assert project.files() == {
        **clean_generation(tmp_path / "clean", library(shelf=False)),
        "src/app/mine.ts": HANDWRITTEN,
    }
