"""Planted checkpoints cannot mark nodes done when progress is sealed with a state key.

Binding a resume to the run id (test_sec_claim_run) does not stop a writer of the state
branch who knows the run id. Run ids are public, on the Actions page. That writer can plant
a claim for the re-run, with checkpoints that mark nodes done so they never run. With a state
key (``AVEROS_CI_STATE_KEY``, the ``state-key`` input), every claim/progress commit carries
``seal.json``, an HMAC over the claim, the checkpoints and the partial workspace. A resume
whose seal is missing, forged or does not match the files is refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.github.gh_fake import FakeGitHub
from tests.github.gh_world import World, make_world
from tests.security._attack import approved_merge, plant_on_state_branch
from tests.security.test_sec_claim_run import FAILING, fixed_checkout

pytestmark = pytest.mark.slow
KEY = "correct horse battery staple"


@pytest.fixture
def world(tmp_path: Path, fake: FakeGitHub) -> World:
    fake.roles.update(alice="write", bob="write")
    w = make_world(tmp_path, fake, adapter_options={"failNodes": [FAILING]})
    w.extra_env["AVEROS_CI_STATE_KEY"] = KEY
    return w


def done_record(node: str) -> str:
    checkpoint = {
        "nodeId": node,
        "status": "SUCCESS",
        "attempt": 1,
        "failure": None,
        "runtimeMutation": None,
        "updatedAt": "2026-01-01T00:00:00Z",
    }
    return json.dumps({"runId": "planted", "checkpoint": checkpoint}) + "\n"


def test_planted_checkpoints_for_the_rerun_are_refused(world: World, fake: FakeGitHub) -> None:
    approved, merge = approved_merge(world, fake)
    rerun = str(world.jobs + 1)  # the run id the apply will have; the attacker reads it
    header = {
        "formatVersion": 1,
        "kind": "averos-ci/checkpoints",
        "planHash": approved,
        "createdAt": "2026-01-01T00:00:00Z",
    }
    claim = {"formatVersion": 1, "planHash": approved, "sha": merge, "pr": 1, "runId": rerun}
    journal = json.dumps(header) + "\n" + done_record("application:ToDoApp") + done_record(FAILING)
    plant_on_state_branch(
        world,
        {
            "default/apply.json": json.dumps({**claim, "runs": []}),
            "default/checkpoints.json": journal,
            "default/checkpoints.sealed.json": journal,
            "default/seal.json": json.dumps(
                {"formatVersion": 1, "algorithm": "HMAC-SHA256", "files": {}, "mac": "0" * 64}
            ),
        },
    )
    # the node the planted checkpoint marks done is the one that fails: run, it fails the apply
    r = world.run("push", world.push_event(merge), merge)
    out = r.stdout + r.stderr
    assert r.code == 1, out
    assert "is not authenticated" in out and "averos-ci state abandon" in out, out
    assert "resuming" not in out, out
    files = world.state_files()
    assert "default/state.json" not in files, out
    assert not any(p.startswith("default/runs/") for p in files), out


def test_sealed_progress_resumes_and_tampered_progress_does_not(
    world: World, fake: FakeGitHub
) -> None:
    _, merge = approved_merge(world, fake)
    r = world.run("push", world.push_event(merge), merge)
    assert r.code == 1, r.stdout + r.stderr
    run_id = world.last_run_id
    assert run_id is not None
    files = world.state_files()
    seal = json.loads(files["default/seal.json"])
    assert set(seal["files"]) >= {"apply.json", "checkpoints.sealed.json"}, seal
    assert KEY not in json.dumps(files)  # the key itself is never written
    sealed = files["default/checkpoints.sealed.json"] + "\n"

    # a state-branch writer marks the failed node done, keeping the (now stale) seal
    plant_on_state_branch(world, {"default/checkpoints.sealed.json": sealed + done_record(FAILING)})
    r = world.run("push", world.push_event(merge), merge, rerun_of=run_id)
    out = r.stdout + r.stderr
    assert r.code == 1, out
    assert "files differ from what was sealed (checkpoints.sealed.json)" in out, out
    assert "default/state.json" not in world.state_files(), out

    # the branch restored from its history: the re-run resumes what the first attempt sealed
    plant_on_state_branch(world, {"default/checkpoints.sealed.json": sealed})
    checkout = fixed_checkout(world, merge)
    r = world.run("push", world.push_event(merge), merge, checkout=checkout, rerun_of=run_id)
    out = r.stdout + r.stderr
    assert r.code == 0, out
    assert "resuming an interrupted apply" in out, out
    files = world.state_files()
    assert "default/state.json" in files, out
    assert not any(p in files for p in ("default/seal.json", "default/checkpoints.sealed.json"))
    record = json.loads(next(v for p, v in files.items() if p.startswith("default/runs/")))
    assert record["resumed"] is True and record["resumedNodes"] >= 1, record
