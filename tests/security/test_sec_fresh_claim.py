"""A fresh claim starts from nothing: progress planted without a claim is never sealed.

With a state key, a resume trusts only what a seal covers. But the seal is made by the
apply itself, over the folder it exported. A state-branch writer who plants only
``default/checkpoints.json`` (every node SUCCESS for the approved, public planHash) or files
under ``default/partial-workspace/`` -- and no claim -- must not get them sealed by the next
legitimate apply: it claims from an empty folder, so its re-run executes every node and
restores only what that run generated."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.github.gh_fake import FakeGitHub
from tests.github.gh_world import CLI, World, git, make_world
from tests.security._attack import approved_merge, plant_on_state_branch
from tests.security.test_sec_claim_run import FAILING, fixed_checkout
from tests.security.test_sec_sealed_progress import KEY, done_record

pytestmark = pytest.mark.slow
BACKDOOR = "workspace/src/backdoor.ts"


@pytest.fixture
def world(tmp_path: Path, fake: FakeGitHub) -> World:
    fake.roles.update(alice="write", bob="write")
    w = make_world(tmp_path, fake, adapter_options={"failNodes": [FAILING]})
    w.extra_env["AVEROS_CI_STATE_KEY"] = KEY
    return w


def plan_nodes(world: World, sha: str) -> tuple[str, list[str]]:
    """(planHash, executable node ids) of ``sha`` planned from nothing, as anyone can."""
    checkout = world.checkout(sha)
    proc = subprocess.run(
        [*CLI, "plan", "--format", "json"], cwd=checkout, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    return str(data["planHash"]), [n["id"] for n in data["nodes"] if n["action"] != "skip"]


def planted_journal(plan_hash: str, nodes: list[str]) -> str:
    header = {
        "formatVersion": 1,
        "kind": "averos-ci/checkpoints",
        "planHash": plan_hash,
        "createdAt": "2026-01-01T00:00:00Z",
    }
    return json.dumps(header) + "\n" + "".join(done_record(n) for n in nodes)


def test_planted_checkpoints_without_a_claim_are_not_sealed(world: World, fake: FakeGitHub) -> None:
    approved, merge = approved_merge(world, fake)
    plan_hash, nodes = plan_nodes(world, merge)
    assert plan_hash == approved and FAILING in nodes
    # no claim: only the journal, marking every node of the approved plan done
    plant_on_state_branch(world, {"default/checkpoints.json": planted_journal(approved, nodes)})

    r = world.run("push", world.push_event(merge), merge)
    out = r.stdout + r.stderr
    assert r.code == 1, out  # the failing node ran and failed: the apply started from nothing
    run_id = world.last_run_id
    assert run_id is not None
    files = world.state_files()
    sealed = files.get("default/checkpoints.sealed.json", "")
    assert "planted" not in sealed, sealed  # the planted records were never sealed
    assert "unfinished run of this plan" not in out, out

    # the re-run (same failing checkout) resumes only what the first attempt did: it fails too
    r = world.run("push", world.push_event(merge), merge, rerun_of=run_id)
    out = r.stdout + r.stderr
    assert r.code == 1, out
    assert "default/state.json" not in world.state_files(), out


def kill_after_claim(world: World, merge: str) -> str:
    """Start the apply and kill it once its claim is on the state branch, before any
    progress push (each node takes seconds): the claim commit is all that is left."""
    proc, env = world.start("push", world.push_event(merge), merge)
    deadline = time.monotonic() + 60
    claimed = False
    while time.monotonic() < deadline and proc.poll() is None:
        claimed = "default/apply.json" in world.state_files()
        if claimed:
            break
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=30)
    assert claimed, "the apply never claimed"
    return env["GITHUB_RUN_ID"]


def test_a_planted_partial_workspace_is_not_sealed_or_restored(
    tmp_path: Path, fake: FakeGitHub
) -> None:
    fake.roles.update(alice="write", bob="write")
    world = make_world(tmp_path, fake, adapter_options={"latencyMs": 3000})
    world.extra_env["AVEROS_CI_STATE_KEY"] = KEY
    _, merge = approved_merge(world, fake)
    plant_on_state_branch(
        world,
        {f"default/partial-workspace/files/{BACKDOOR}": "export const pwned = true;\n"},
    )
    run_id = kill_after_claim(world, merge)
    files = world.state_files()
    assert not any("backdoor" in p for p in files), sorted(files)
    seal = json.loads(files["default/seal.json"])
    assert not any("backdoor" in p for p in seal["files"]), seal

    checkout = fixed_checkout(world, merge)  # the re-run is quick: no latency, same planHash
    r = world.run("push", world.push_event(merge), merge, checkout=checkout, rerun_of=run_id)
    out = r.stdout + r.stderr
    assert r.code == 0, out
    assert not (checkout / BACKDOOR).exists(), out
    assert BACKDOOR not in git(world.origin, "ls-tree", "-r", "--name-only", "main"), out
