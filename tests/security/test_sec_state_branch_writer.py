"""Finding 1 (High), as the attack: a user who can push to the state branch plants a fake
"interrupted apply" of the approved plan — another manifest, a workflow file, a deletion —
before the merge's apply job runs. The apply must execute exactly the approved plan and
restore nothing but generated files under ``workspaceRoot``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.github.gh_fake import FakeGitHub
from tests.github.gh_world import World, make_world, manifest_variant
from tests.security._attack import approved_merge, plant_on_state_branch, show, tree

pytestmark = pytest.mark.slow


@pytest.fixture
def world(tmp_path: Path, fake: FakeGitHub) -> World:
    fake.roles.update(alice="write", bob="write")
    return make_world(tmp_path, fake, github_settings={"commitWorkspace": "same-branch"})


def test_a_planted_interrupted_apply_cannot_change_what_is_applied(
    world: World, fake: FakeGitHub
) -> None:
    approved, merge = approved_merge(world, fake)
    next_run = str(world.jobs + 1)  # the run id the apply job will have (a "re-run" of it)
    evil_config = json.loads((world.dev / "averos.config.json").read_text(encoding="utf-8"))
    evil_config["adapterOptions"] = {"latencyMs": 1}
    plant_on_state_branch(
        world,
        {
            "default/apply.json": json.dumps(
                {
                    "formatVersion": 1,
                    "planHash": approved,
                    "sha": merge,
                    "pr": 1,
                    "runId": next_run,
                    "runs": [
                        {
                            "sha": merge,
                            "runUrl": f"https://github.com/{fake.repo}/actions/runs/{next_run}",
                            "at": "2026-01-01T00:00:00Z",
                        }
                    ],
                }
            ),
            # six more translation entries nobody approved
            "default/partial-workspace/files/todoapp.manifest.yaml": manifest_variant(6),
            "default/partial-workspace/files/averos.config.json": json.dumps(evil_config),
            "default/partial-workspace/files/.github/workflows/evil.yml": "on: push\n",
            "default/partial-workspace/deleted.json": json.dumps([".gitignore"]),
        },
    )
    r = world.run("push", world.push_event(merge), merge)
    out = r.stdout + r.stderr
    assert r.outputs.get("plan-hash") == approved, out
    state = world.state_files().get("default/state.json", "")
    # whatever happened, nothing but the approved plan was applied or recorded
    assert "extra.k5" not in state, out
    assert "extra.k0" in state or r.code != 0, out
    main = "refs/heads/main"
    assert show(world, main, "todoapp.manifest.yaml") == manifest_variant(1).rstrip("\n"), out
    assert '"latencyMs": 1' not in (show(world, main, "averos.config.json") or ""), out
    assert ".github/workflows/evil.yml" not in tree(world, main), out
    assert ".gitignore" in tree(world, main), out


def test_a_planted_claim_for_another_commit_is_not_resumed(world: World, fake: FakeGitHub) -> None:
    approved, merge = approved_merge(world, fake)
    before = world.push_event(merge)["before"]
    plant_on_state_branch(
        world,
        {
            "default/apply.json": json.dumps(
                {"formatVersion": 1, "planHash": approved, "sha": before, "pr": 1, "runs": []}
            ),
            "default/partial-workspace/files/workspace/planted.txt": "planted\n",
        },
    )
    r = world.run("push", world.push_event(merge), merge)
    out = r.stdout + r.stderr
    assert r.code == 1, out
    assert "another apply holds" in out, out
    assert "workspace/planted.txt" not in tree(world, "refs/heads/main"), out
    assert "default/state.json" not in world.state_files(), out
