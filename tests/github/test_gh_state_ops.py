"""``averos-ci state show|abandon|rollback`` on a real state branch: a bare origin, jobs run as
separate processes on the fake GitHub API, the commands run from a developer's clone."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections.abc import Mapping
from pathlib import Path

import pytest

from tests.github.gh_fake import FakeGitHub
from tests.github.gh_steps import approved_pr
from tests.github.gh_world import CLI, STATE_BRANCH, JobResult, World, git, make_world

pytestmark = pytest.mark.slow


def merge_and_apply(world: World, number: int, branch: str) -> tuple[str, JobResult]:
    merge = world.merge(branch)
    world.fake.merge(number, merge)
    return merge, world.run("push", world.push_event(merge), merge)


def state(world: World, *args: str, actor: str | None = "carol") -> JobResult:
    """``averos-ci state …`` in the developer's clone, as a person runs it (no Actions env)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    if actor is not None:
        env["GITHUB_ACTOR"] = actor
    proc = subprocess.run(
        [*CLI, "state", *args], cwd=world.dev, env=env, capture_output=True, text=True, timeout=120
    )
    return JobResult(proc.returncode, proc.stdout, proc.stderr, {}, "")


def records(world: World, action: str) -> list[dict[str, object]]:
    files = world.state_files()
    runs = (p for p in files if p.startswith("default/runs/"))
    names = sorted(p for p in runs if p.endswith(f"{action}.json"))
    return [json.loads(files[n]) for n in names]


def tip_commit(world: World) -> tuple[str, str]:
    """(author "name <email>", message) of the state branch's tip on the origin."""
    out = git(world.origin, "log", "-1", "--format=%an <%ae>%x00%B", STATE_BRANCH)
    author, _, message = out.partition("\0")
    return author, message


LEFTOVERS = {
    "default/apply.json": '{"formatVersion": 1, "planHash": "ab", "sha": "cd", "runs": []}',
    "default/partial-workspace/app/src/a.ts": "export const a = 1;\n",
    "other/apply.json": '{"formatVersion": 1, "planHash": "ef", "sha": "01", "runs": []}',
}


def plant(world: World, files: Mapping[str, str | None], message: str = "leftovers") -> None:
    """Another writer's commit on the origin's state branch (``None``: delete the file)."""
    scratch = world.root / f"scratch-{len(list(world.root.glob('scratch-*')))}"
    git(world.root, "clone", "-q", str(world.origin), str(scratch))
    if world.state_tip() is None:
        git(scratch, "checkout", "-q", "--orphan", STATE_BRANCH)
        git(scratch, "rm", "-rq", "--cached", "--ignore-unmatch", ".")
    else:
        git(scratch, "checkout", "-q", STATE_BRANCH)
    for rel, text in files.items():
        if text is None:
            git(scratch, "rm", "-q", rel)
            continue
        (scratch / rel).parent.mkdir(parents=True, exist_ok=True)
        (scratch / rel).write_text(text, encoding="utf-8")
        git(scratch, "add", rel)
    git(scratch, "commit", "-q", "-m", message)
    git(scratch, "push", "-q", "origin", STATE_BRANCH)


def kill_mid_apply(world: World, merge: str) -> int:
    proc, _ = world.start("push", world.push_event(merge), merge)
    deadline, done = time.monotonic() + 60, 0
    while time.monotonic() < deadline and proc.poll() is None:
        done = world.state_files().get("default/checkpoints.json", "").count('"SUCCESS"')
        if done >= 2:
            break
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=30)
    assert done >= 2, "no progress reached the state branch"
    return done


def test_abandon_after_a_killed_apply_lets_the_next_apply_run(
    tmp_path: Path, fake: FakeGitHub
) -> None:
    fake.roles.update(alice="write", bob="write")
    world = make_world(tmp_path, fake, adapter_options={"latencyMs": 100})
    approved_pr(world, 1, "feat1", 1)
    approved_pr(world, 2, "feat2", 2, base="feat1")  # planned against the same empty state
    merge1 = world.merge("feat1")
    fake.merge(1, merge1)
    kill_mid_apply(world, merge1)
    assert "default/apply.json" in world.state_files()

    shown = state(world, "show")
    assert shown.code == 0, shown.stderr
    assert "state: nothing applied yet" in shown.stdout
    assert f"commit {merge1[:12]}" in shown.stdout and "SUCCESS" in shown.stdout
    assert "averos-ci state abandon" in shown.stdout
    data = json.loads(state(world, "show", "--format", "json").stdout)
    assert data["formatVersion"] == 1 and data["state"] is None
    assert data["pending"]["claim"]["sha"] == merge1
    assert data["pending"]["checkpoints"]["SUCCESS"] >= 2

    # the claim blocks the next merge's apply (catch-up tries to resume it first, but only a
    # re-run of the run that wrote it may), and the refusal names the command
    merge2, r = merge_and_apply(world, 2, "feat2")
    assert r.code == 1 and "only a re-run of that run resumes it" in r.stderr, r.stdout + r.stderr
    assert "averos-ci state abandon" in r.stderr and "delete" not in r.stderr

    # rollback refuses while the claim is there; nothing is written
    tip = world.state_tip()
    r = state(world, "rollback", "--to", merge1, "--reason", "try")
    assert r.code == 1 and "an apply holds project 'default'" in r.stderr, r.stderr
    assert "averos-ci state abandon" in r.stderr and world.state_tip() == tip

    r = state(world, "abandon", "--reason", "runner died mid-apply")
    assert r.code == 0, r.stderr
    files = world.state_files()
    assert not any(
        p in files for p in ("default/apply.json", "default/checkpoints.json")
    ) and not any(p.startswith("default/partial-workspace/") for p in files)
    (record,) = records(world, "abandon")
    assert record["formatVersion"] == 1 and record["action"] == "abandon"
    assert record["actor"] == "carol" and record["reason"] == "runner died mid-apply"
    assert record["abandoned"]["claim"]["sha"] == merge1  # type: ignore[index]
    author, message = tip_commit(world)
    assert author == "carol <carol@users.noreply.github.com>"
    assert "abandon apply of" in message and "runner died mid-apply" in message

    r = world.run("push", world.push_event(merge2), merge2)
    assert r.code == 0, r.stdout + r.stderr
    assert "resuming" not in r.stdout
    applied = json.loads(world.state_files()["default/state.json"])
    assert applied["serial"] == 1 and "k1" in json.dumps(applied["manifest"])

    # nothing left to abandon: exit 2, no commit
    tip = world.state_tip()
    r = state(world, "abandon", "--reason", "again")
    assert r.code == 2 and "nothing to abandon" in r.stderr, r.stderr
    assert "hint:" in r.stderr and world.state_tip() == tip


def test_rollback_prints_its_plan_and_the_next_apply_re_applies_the_difference(
    tmp_path: Path, fake: FakeGitHub
) -> None:
    fake.roles.update(alice="write", bob="write")
    world = make_world(tmp_path, fake, adapter_options={"latencyMs": 1})
    approved_pr(world, 1, "feat1", 1)
    merge1, r = merge_and_apply(world, 1, "feat1")
    assert r.code == 0, r.stdout + r.stderr
    first = json.loads(world.state_files()["default/state.json"])
    approved_pr(world, 2, "feat2", 3)
    merge2, r = merge_and_apply(world, 2, "feat2")
    assert r.code == 0, r.stdout + r.stderr
    git(world.dev, "pull", "-q", "--ff-only", "origin", "main")

    tip = world.state_tip()
    dry = state(world, "rollback", "--to", merge1[:10], "--reason", "k1, k2 broke prod")
    assert dry.code == 0, dry.stderr
    assert f"applied commit {merge1[:12]}" in dry.stdout
    assert "2 to create" in dry.stdout  # the normal plan rendering: k1 and k2 come back
    assert "extra.k1" in dry.stdout and "Dry run: nothing was written" in dry.stdout
    assert world.state_tip() == tip

    for bad, why in (("deadbeef00", "neither an applied commit"), ("zz", "neither")):
        r = state(world, "rollback", "--to", bad, "--reason", "x")
        assert r.code == 2 and why in r.stderr and "hint: pick one of" in r.stderr, r.stderr
        assert world.state_tip() == tip
    r = state(world, "rollback", "--to", merge2, "--reason", "x")
    assert r.code == 2 and "nothing to roll back" in r.stderr, r.stderr

    r = state(world, "rollback", "--to", merge1, "--reason", "k1, k2 broke prod", "--yes")
    assert r.code == 0, r.stderr
    assert "Rolled back:" in r.stdout and "2 to create" in r.stdout
    rolled = json.loads(world.state_files()["default/state.json"])
    assert rolled["manifestHash"] == first["manifestHash"]
    assert rolled["nodeStates"] == first["nodeStates"] and rolled["serial"] == 3
    (record,) = records(world, "rollback")
    assert record["actor"] == "carol" and record["reason"] == "k1, k2 broke prod"
    assert record["sha"] == merge1 and record["from"]["sha"] == merge2  # type: ignore[index]
    author, message = tip_commit(world)
    assert author.startswith("carol ") and "roll back to" in message and "broke prod" in message
    shown = json.loads(state(world, "show", "--format", "json").stdout)
    assert shown["lastApply"]["action"] == "rollback" and shown["lastApply"]["sha"] == merge1

    # the next apply re-applies the difference (k1, k2) and the new change (k3)
    approved_pr(world, 3, "feat3", 4)
    plan = str(fake.bot_comments(3)[0]["body"])
    assert "translation (3 create)" in plan and "extra.k1" in plan, plan[:2000]
    merge3, r = merge_and_apply(world, 3, "feat3")
    assert r.code == 0, r.stdout + r.stderr
    (last,) = [d for d in records(world, "") if d.get("sha") == merge3]
    assert last["summary"]["succeeded"] == 3  # type: ignore[index]
    final = json.loads(world.state_files()["default/state.json"])
    assert final["serial"] == 4 and "extra.k3" in json.dumps(final["manifest"])


def test_abandon_removes_a_partial_workspace_and_is_attributed_to_git_user(
    tmp_path: Path, fake: FakeGitHub
) -> None:
    world = make_world(tmp_path, fake)
    plant(world, LEFTOVERS)
    git(world.dev, "config", "user.name", "Dana Dev")
    git(world.dev, "config", "user.email", "dana@example.com")

    env_free = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "GIT_AUTHOR"))}
    proc = subprocess.run(
        [*CLI, "state", "abandon", "--reason", "stuck"],
        cwd=world.dev,
        env=env_free,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    files = world.state_files()
    assert set(files) - {p for p in files if "/runs/" in p} == {"other/apply.json"}
    author, _ = tip_commit(world)
    assert author == "Dana Dev <dana@example.com>"
    (record,) = records(world, "abandon")
    assert record["actor"] == "Dana Dev"
    assert record["abandoned"]["partialWorkspace"] == {"files": 1, "bytes": 20}  # type: ignore[index]

    other = state(world, "show", "--project", "other", "--format", "json")
    assert json.loads(other.stdout)["pending"]["claim"]["planHash"] == "ef", other.stderr
    r = state(world, "show", "--project", "../x")
    assert r.code == 2 and "/github/project" in r.stderr, r.stderr
    r = state(world, "abandon", "--reason", "   ")
    assert r.code == 2 and "--reason is empty" in r.stderr
    r = state(world, "abandon")
    assert r.code == 2 and "--reason" in r.stderr


@pytest.mark.parametrize("meanwhile", ["another project", "the same abandon"])
def test_a_moved_tip_is_fetched_and_decided_again(
    tmp_path: Path, fake: FakeGitHub, monkeypatch: pytest.MonkeyPatch, meanwhile: str
) -> None:
    from averos_ci.stateops.operation import NothingToDo, abandon_apply
    from averos_ci.stateops.target import open_target

    world = make_world(tmp_path, fake)
    plant(world, LEFTOVERS)
    target = open_target(config_path=world.dev / "averos.config.json")
    real_fetch, tips = target.sb.fetch, list[str | None]()

    def fetch_then_someone_pushes() -> str | None:
        tip = real_fetch()
        if not tips:  # between our fetch and our push, another writer lands on the origin
            if meanwhile == "another project":
                plant(world, {"other/state.json": "{}"}, "other project applied")
            else:
                gone = {p: None for p in LEFTOVERS if p.startswith("default/")}
                plant(world, gone, "abandoned by someone else")
        tips.append(tip)
        return tip

    monkeypatch.setattr(target.sb, "fetch", fetch_then_someone_pushes)
    if meanwhile == "the same abandon":
        with pytest.raises(NothingToDo, match="nothing to abandon") as exc:
            abandon_apply(target, reason="stuck")
        assert exc.value.exit_code == 2 and len(tips) == 2 and tips[1] == world.state_tip()
        return
    result = abandon_apply(target, reason="stuck")
    assert len(tips) == 2 and result.commit == world.state_tip()
    parent = git(world.origin, "rev-parse", f"{STATE_BRANCH}^")
    assert parent == tips[1]  # built on the other writer's commit, which is kept
    files = world.state_files()
    assert "other/state.json" in files and "default/apply.json" not in files
