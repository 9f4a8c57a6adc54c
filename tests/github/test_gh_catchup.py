"""Applies catch up through approved plans only (fake GitHub API, bare origin, mock adapter):
quick merges whose apply jobs were cancelled lose nothing, an unapproved merge stops the chain
with its recomputed plan on that pull request, approving it there resumes the chain, and
``workflow_dispatch`` re-runs the catch-up."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from averos_ci.forge.events import WorkflowDispatchEvent, load_event
from averos_ci.review.comment import PlanMeta
from tests.github.gh_fake import FakeGitHub
from tests.github.gh_world import (
    EVENTS,
    World,
    git,
    load_payload,
    manifest_variant,
)

pytestmark = pytest.mark.slow

# Two places of the manifest far enough apart for git to merge independent edits cleanly:
# English entries after the last English one, French ones at the end.
EN_ANCHOR = "      - { localeID: todoarea.title, localeValue: Title, targetEntity: ToDoArea }\n"


def manifest(*, en: int = 0, fr: int = 0) -> str:
    text = manifest_variant(fr)
    extra = "".join(
        f"      - {{ localeID: extra.en{i}, localeValue: E{i}, targetEntity: ToDoArea }}\n"
        for i in range(en)
    )
    assert text.count(EN_ANCHOR) == 1
    return text.replace(EN_ANCHOR, EN_ANCHOR + extra)


def open_pr(world: World, number: int, text: str) -> str:
    """PR ``number`` from the current main with ``text`` as its manifest, planned."""
    branch = f"feat{number}"
    head = world.commit(branch, {"todoapp.manifest.yaml": text}, f"change {number}")
    world.fake.add_pull(number, author="alice", head_sha=head, head_ref=branch)
    r = world.run("pull_request", world.pr_event("opened", number), head)
    assert r.code == 0, r.stderr
    return head


def approve(world: World, number: int, sha: str, *, command: str = "auto") -> Any:
    """bob approves the plan shown on #``number``; the job runs at ``sha``."""
    c = world.fake.add_comment(number, user="bob", body=world.approve_command(number))
    return world.run("issue_comment", world.comment_event(number, c), sha, command=command)


def merge(world: World, number: int) -> str:
    sha = world.merge(f"feat{number}")
    world.fake.merge(number, sha)
    return sha


def sticky_meta(fake: FakeGitHub, number: int) -> tuple[PlanMeta, str]:
    found = [c for c in fake.bot_comments(number) if "averos-ci:plan" in str(c["body"])]
    assert len(found) == 1
    meta = PlanMeta.decode(str(found[0]["body"]))
    assert meta is not None
    return meta, str(found[0]["body"])


def results(fake: FakeGitHub, number: int) -> list[str]:
    return [str(c["body"]) for c in fake.bot_comments(number) if "averos-ci:result" in c["body"]]


def state(world: World) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(world.state_files()["default/state.json"])
    return data


def run_shas(world: World) -> list[str]:
    files = world.state_files()
    return [json.loads(files[p])["sha"] for p in sorted(files) if p.startswith("default/runs/")]


def applied_a(world: World) -> str:
    """PR #1 (one French entry) approved, merged and applied: the state's serial 1."""
    open_pr(world, 1, manifest(fr=1))
    assert approve(world, 1, world.fake.pulls[1]["head"]["sha"]).code == 0
    ma = merge(world, 1)
    r = world.run("push", world.push_event(ma), ma)
    assert r.code == 0, r.stdout + r.stderr
    assert state(world)["serial"] == 1
    return ma


def test_cancelled_apply_loses_nothing_the_next_merge_catches_up(
    world: World, fake: FakeGitHub
) -> None:
    ma = applied_a(world)
    # B and C approved and merged in quick succession, each from the then-current main
    open_pr(world, 2, manifest(en=1, fr=1))
    assert approve(world, 2, ma).outputs["approved"] == "true"
    mb = merge(world, 2)
    head_c = open_pr(world, 3, manifest(en=1, fr=2))  # planned after B merged: contains B
    assert approve(world, 3, head_c).outputs["approved"] == "true"
    mc = merge(world, 3)
    # B's apply job was cancelled by `concurrency` (a newer pending run): it never runs
    r = world.run("push", world.push_event(mc), mc)
    assert r.code == 0, r.stdout + r.stderr
    plan_c, _ = sticky_meta(fake, 3)
    assert r.outputs["plan-hash"] == plan_c.plan_hash and r.outputs["success"] == "true"
    s = state(world)
    assert s["serial"] == 2  # one apply: C's plan covers B's change
    assert "extra.en0" in json.dumps(s["manifest"]) and "extra.k1" in json.dumps(s["manifest"])
    assert run_shas(world) == [ma, mc]
    assert any("Applied plan" in b for b in results(fake, 3))
    assert not results(fake, 2)  # B was applied as part of C's approved plan
    files = world.state_files()
    assert "default/apply.json" not in files and "default/checkpoints.json" not in files
    # a later job for B's own merge finds the state ahead of it: nothing to do, nothing changes
    tip = world.state_tip()
    r = world.run("push", world.push_event(mb), mb)
    assert r.code == 0, r.stdout + r.stderr
    assert f"after {mb[:12]}" in r.stdout and world.state_tip() == tip


def test_an_unapproved_merge_stops_the_chain_and_approving_on_the_merged_pr_resumes_it(
    world: World, fake: FakeGitHub
) -> None:
    ma = applied_a(world)
    # B (an English entry) is never approved; C (a French one) is, both planned on state 1
    open_pr(world, 2, manifest(en=1, fr=1))
    head_c = open_pr(world, 3, manifest(fr=2))
    assert approve(world, 3, head_c).outputs["approved"] == "true"
    mb, mc = merge(world, 2), merge(world, 3)
    assert git(world.origin, "rev-parse", f"{mc}^1") == mb
    before, _ = sticky_meta(fake, 2)

    r = world.run("push", world.push_event(mc, before=mb), mc)
    assert r.code == 1, r.stdout + r.stderr
    assert f"stopped at {mb[:12]}, #2; 1 later commit(s) wait" in r.stderr
    assert "approve the recomputed plan on #2" in r.stderr
    assert state(world)["serial"] == 1 and run_shas(world) == [ma]  # nothing applied
    meta_b, body_b = sticky_meta(fake, 2)
    assert meta_b.plan_hash == before.plan_hash  # the state did not move: the same plan
    assert (
        "Not applied after the merge" in body_b
        and f"/averos approve {meta_b.plan_hash[:12]}" in body_b
    )
    assert any("Not applied" in b for b in results(fake, 2))
    assert not results(fake, 3)

    # approving the recomputed plan on the merged PR B runs the catch-up (apply workflow):
    # B is applied; C's approved plan was computed on the state before B, so it stops there
    r = approve(world, 2, mc, command="apply")
    assert r.code == 1, r.stdout + r.stderr
    assert "approval by bob counted" in r.stdout
    s = state(world)
    assert s["serial"] == 2 and "extra.en0" in json.dumps(s["manifest"])
    assert "extra.k1" not in json.dumps(s["manifest"])
    assert run_shas(world) == [ma, mb]
    assert any("Applied plan" in b for b in results(fake, 2))
    meta_c, body_c = sticky_meta(fake, 3)
    assert "Not applied after the merge" in body_c and not meta_c.current_approvals()
    assert any("Not applied" in b for b in results(fake, 3))

    # approving the recomputed plan on the merged PR C applies C: the chain is complete
    r = approve(world, 3, mc, command="apply")
    assert r.code == 0, r.stdout + r.stderr
    s = state(world)
    assert s["serial"] == 3
    assert "extra.en0" in json.dumps(s["manifest"]) and "extra.k1" in json.dumps(s["manifest"])
    assert run_shas(world) == [ma, mb, mc]
    assert r.outputs["plan-hash"] == sticky_meta(fake, 3)[0].plan_hash
    assert any("Applied plan" in b for b in results(fake, 3))


def test_a_stale_approval_on_the_merged_pr_does_not_apply(world: World, fake: FakeGitHub) -> None:
    applied_a(world)
    open_pr(world, 2, manifest(en=1, fr=1))
    head_c = open_pr(world, 3, manifest(fr=2))
    old = world.approve_command(3)  # C's original plan, before B was applied
    assert approve(world, 3, head_c).outputs["approved"] == "true"
    mb, mc = merge(world, 2), merge(world, 3)
    assert world.run("push", world.push_event(mc, before=mb), mc).code == 1
    assert approve(world, 2, mc, command="apply").code == 1  # B applied, stops at C
    tip = world.state_tip()
    c = fake.add_comment(3, user="bob", body=old)  # pins the plan that no longer holds
    r = world.run("issue_comment", world.comment_event(3, c), mc, command="apply")
    # the catch-up runs anyway (issue 22: a comment on a merged PR must not drop the pending
    # apply) and stops at C again: nothing is applied
    assert r.code == 1 and "approval by bob not counted" in r.stdout, r.stdout + r.stderr
    assert "not the current plan" in r.stdout + json.dumps(
        [x["body"] for x in fake.bot_comments(3)]
    )
    assert world.state_tip() == tip and state(world)["serial"] == 2


def test_the_workflow_dispatch_payload_parses() -> None:
    event = load_event("workflow_dispatch", EVENTS / "workflow_dispatch.json")
    assert isinstance(event, WorkflowDispatchEvent)
    assert event.ref == "refs/heads/master" and event.inputs == {"name": "Mona the Octocat"}
    assert event.repository.default_branch == "master"


def test_workflow_dispatch_re_runs_the_catch_up_for_a_project(
    world: World, fake: FakeGitHub
) -> None:
    ma = applied_a(world)
    head_b = open_pr(world, 2, manifest(en=1, fr=1))
    assert approve(world, 2, head_b).outputs["approved"] == "true"
    mb = merge(world, 2)  # its push run was cancelled

    def dispatch(project: str, command: str = "apply") -> Any:
        payload = load_payload("workflow_dispatch.json")
        payload["repository"].update(full_name=fake.repo, default_branch="main")
        payload.update(ref="refs/heads/main", inputs={"project": project})
        return world.run("workflow_dispatch", payload, mb, command=command)

    tip = world.state_tip()
    r = dispatch("apps/other")
    assert r.code == 0 and "nothing to do" in r.stdout, r.stdout + r.stderr
    assert world.state_tip() == tip
    r = dispatch("default", command="auto")
    assert r.code == 0, r.stdout + r.stderr
    assert state(world)["serial"] == 2 and run_shas(world) == [ma, mb]
    assert any("Applied plan" in b for b in results(fake, 2))
    r = dispatch("default")  # again: the state holds the head
    assert r.code == 0 and "no changes" in r.stdout, r.stdout + r.stderr
    assert state(world)["serial"] == 2


def test_a_two_step_catch_up_plans_each_step_once(
    world: World, fake: FakeGitHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The catch-up hands the step it chose, with its plan, to the apply: no plan of the same
    manifest against the same state is computed twice (the engine's own check aside)."""
    import hashlib

    from averos_ci.github import ApplyRefused, run_github
    from averos_ci.planning import apply as engine_apply
    from averos_ci.state import guard

    ma = applied_a(world)
    open_pr(world, 2, manifest(en=1, fr=1))
    head_c = open_pr(world, 3, manifest(fr=2))  # approved without B: merged, it is not that plan
    assert approve(world, 2, ma).outputs["approved"] == "true"
    assert approve(world, 3, head_c).outputs["approved"] == "true"
    mb, mc = merge(world, 2), merge(world, 3)

    planned: list[tuple[str, int | None]] = []
    in_engine: list[bool] = []
    compute = guard.compute_plan

    def counting(**kwargs: Any) -> Any:
        if not in_engine:
            digest = hashlib.sha256(Path(kwargs["manifest_path"]).read_bytes()).hexdigest()
            state = kwargs["state"]
            planned.append((digest[:12], state.serial if state is not None else None))
        return compute(**kwargs)

    def engine(config: Any, **kwargs: Any) -> Any:
        in_engine.append(True)
        try:
            return engine_apply(config, **kwargs)
        finally:
            in_engine.pop()

    checkout = world.checkout(mc)
    for key, value in world.job_env("push", world.push_event(mc, before=mb), checkout, mc).items():
        monkeypatch.setenv(key, value)
    monkeypatch.chdir(checkout)
    monkeypatch.setattr(guard, "compute_plan", counting)
    with pytest.raises(ApplyRefused):
        run_github("apply", apply_fn=engine)  # B applied, then C's merged plan is unapproved
    assert run_shas(world) == [ma, mb] and state(world)["serial"] == 2
    repeated = {key: n for key in set(planned) if (n := planned.count(key)) > 1}
    assert not repeated, f"planned more than once (manifest, state serial): {repeated}"
    assert {serial for _, serial in planned} == {1, 2}  # both steps were planned
