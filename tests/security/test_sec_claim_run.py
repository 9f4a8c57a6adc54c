"""A resumed apply is bound to the run that started it, not only to the plan and commit.

An interrupted apply's claim names its run (``GITHUB_RUN_ID``). GitHub's "Re-run jobs"
keeps the id and increments ``GITHUB_RUN_ATTEMPT``, so only a re-run resumes. Any other run
for the same merge, like a second workflow or a manual dispatch, is refused with a hint that
names ``averos-ci state abandon``. So is a claim that names no run or another one, for
example one planted by a state-branch writer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.github.gh_fake import FakeGitHub
from tests.github.gh_world import World, make_world
from tests.security._attack import approved_merge, plant_on_state_branch

pytestmark = pytest.mark.slow
FAILING = "entity:ToDoTask"


@pytest.fixture
def world(tmp_path: Path, fake: FakeGitHub) -> World:
    fake.roles.update(alice="write", bob="write")
    # the mock's failures are not part of the plan's identity: a fixed checkout plans the same
    return make_world(tmp_path, fake, adapter_options={"failNodes": [FAILING]})


def fixed_checkout(world: World, sha: str) -> Path:
    """The merge checked out with the simulated failure gone (same planHash)."""
    checkout = world.checkout(sha)
    config = json.loads((checkout / "averos.config.json").read_text(encoding="utf-8"))
    config["adapterOptions"] = {}
    (checkout / "averos.config.json").write_text(json.dumps(config), encoding="utf-8")
    return checkout


def interrupted(world: World, fake: FakeGitHub) -> tuple[str, str, str]:
    approved, merge = approved_merge(world, fake)
    r = world.run("push", world.push_event(merge), merge)
    assert r.code == 1, r.stdout + r.stderr
    claim = json.loads(world.state_files()["default/apply.json"])
    run_id = world.last_run_id
    assert run_id is not None and claim["runId"] == run_id, claim
    assert claim["runs"][-1]["attempt"] == "1", claim
    return approved, merge, run_id


def test_another_run_does_not_resume_an_interrupted_apply(world: World, fake: FakeGitHub) -> None:
    _, merge, run_id = interrupted(world, fake)
    before = world.state_files()
    r = world.run("push", world.push_event(merge), merge, checkout=fixed_checkout(world, merge))
    out = r.stdout + r.stderr
    assert r.code == 1, out
    assert f"started by run {run_id}" in out, out
    assert "averos-ci state abandon" in out, out
    assert "resuming" not in out, out
    assert world.state_files() == before  # nothing claimed, nothing applied
    # the result comment on the PR carries the same hint
    assert any("state abandon" in str(c["body"]) for c in fake.bot_comments(1))

    r = world.run(
        "push",
        world.push_event(merge),
        merge,
        checkout=fixed_checkout(world, merge),
        rerun_of=run_id,
    )
    out = r.stdout + r.stderr
    assert r.code == 0, out
    assert "resuming an interrupted apply" in out, out
    files = world.state_files()
    assert "default/state.json" in files and "default/apply.json" not in files
    record = json.loads(next(v for p, v in files.items() if p.startswith("default/runs/")))
    assert record["resumed"] is True and record["summary"]["success"] is True


def test_a_planted_claim_naming_no_run_is_not_resumed(world: World, fake: FakeGitHub) -> None:
    approved, merge = approved_merge(world, fake)
    done = {
        "runId": "planted",
        "checkpoint": {
            "nodeId": FAILING,
            "status": "SUCCESS",
            "attempt": 1,
            "failure": None,
            "runtimeMutation": None,
            "updatedAt": "2026-01-01T00:00:00Z",
        },
    }
    header = {
        "formatVersion": 1,
        "kind": "averos-ci/checkpoints",
        "planHash": approved,
        "createdAt": "2026-01-01T00:00:00Z",
    }
    plant_on_state_branch(
        world,
        {
            "default/apply.json": json.dumps(
                {"formatVersion": 1, "planHash": approved, "sha": merge, "pr": 1, "runs": []}
            ),
            "default/checkpoints.json": "\n".join(map(json.dumps, [header, done])) + "\n",
        },
    )
    r = world.run("push", world.push_event(merge), merge, checkout=fixed_checkout(world, merge))
    out = r.stdout + r.stderr
    assert r.code == 1, out
    assert "started by an unknown run" in out and "averos-ci state abandon" in out, out
    assert "default/state.json" not in world.state_files(), out
