"""Two applies racing on one origin, and an apply killed mid-way that the next job resumes."""

from __future__ import annotations

import json
import signal
import time
from pathlib import Path

import pytest

from tests.github.gh_fake import FakeGitHub
from tests.github.gh_steps import approved_pr
from tests.github.gh_world import World, make_world

pytestmark = pytest.mark.slow


def test_two_applies_race_one_lands_the_other_is_refused(tmp_path: Path, fake: FakeGitHub) -> None:
    """The second job starts while the first holds the claim (its apply.json is on the state
    branch): exactly one lands and the other is refused. (Started at the same moment, the
    second job sometimes began after the first had landed and then had nothing to refuse.)"""
    fake.roles.update(alice="write", bob="write")
    world = make_world(tmp_path, fake, adapter_options={"latencyMs": 300})
    approved_pr(world, 1, "feat1", 1)
    approved_pr(world, 2, "feat2", 2, base="feat1")  # planned against the same empty state
    merge1 = world.merge("feat1")
    fake.merge(1, merge1)
    merge2 = world.merge("feat2")
    fake.merge(2, merge2)
    first = world.start("push", world.push_event(merge1), merge1)
    deadline = time.monotonic() + 120
    while "default/apply.json" not in world.state_files() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert "default/apply.json" in world.state_files(), "the first job never claimed"
    jobs = [first, world.start("push", world.push_event(merge2), merge2)]
    results = []
    for proc, env in jobs:
        out, err = proc.communicate(timeout=300)
        results.append(World.result(proc.returncode, out, err, env))
    codes = [r.code for r in results]
    assert codes == [0, 1], [(r.code, r.stderr[-800:]) for r in results]
    loser = results[1]
    # the claim on the state branch is the first job's: this one may only resume it, never
    # start its own apply beside it
    assert "was started by run" in loser.stderr and "not by this run" in loser.stderr, loser.stderr
    assert "the state was applied from" not in loser.stdout
    winner = next(r for r in results if r is not loser)
    state = json.loads(world.state_files()["default/state.json"])
    assert state["serial"] == 1  # exactly one apply landed; nothing was lost or interleaved
    assert state["manifestHash"]
    assert winner.outputs["plan-hash"]
    files = world.state_files()
    assert "default/apply.json" not in files and "default/checkpoints.json" not in files
    runs = [p for p in files if p.startswith("default/runs/")]
    assert len(runs) == 1
    assert json.loads(files[runs[0]])["planHash"] == winner.outputs["plan-hash"]


def test_killed_apply_is_resumed_by_the_next_job(tmp_path: Path, fake: FakeGitHub) -> None:
    fake.roles.update(alice="write", bob="write")
    world = make_world(tmp_path, fake, adapter_options={"latencyMs": 150})
    approved_pr(world, 1, "feat1", 1)
    merge = world.merge("feat1")
    fake.merge(1, merge)
    proc, first = world.start("push", world.push_event(merge), merge)
    deadline = time.monotonic() + 60
    done_before = 0
    while time.monotonic() < deadline:
        journal = world.state_files().get("default/checkpoints.json", "")
        done_before = journal.count('"SUCCESS"')
        if done_before >= 5:
            break
        time.sleep(0.1)
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=30)
    assert done_before >= 5, "no progress reached the state branch"
    files = world.state_files()
    assert "default/apply.json" in files and "default/state.json" not in files

    # GitHub's "Re-run jobs": the same run id, the next attempt
    r = world.run("push", world.push_event(merge), merge, rerun_of=first["GITHUB_RUN_ID"])
    assert r.code == 0, r.stdout + r.stderr
    assert "resuming an interrupted apply" in r.stdout
    files = world.state_files()
    assert "default/state.json" in files
    assert "default/apply.json" not in files and "default/checkpoints.json" not in files
    run_file = next(p for p in files if p.startswith("default/runs/"))
    record = json.loads(files[run_file])
    assert record["resumed"] is True
    assert record["summary"]["success"] is True
    # completed nodes were not redone: the resumed job executed only the rest
    assert record["resumedNodes"] >= done_before
    assert record["summary"]["succeeded"] == record["summary"]["total"]
