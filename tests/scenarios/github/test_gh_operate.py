"""Operating the flow: the last-pusher rule and statuses that always resolve."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.github.gh_fake import FakeGitHub
from tests.github.gh_world import World, make_world, manifest_variant

pytestmark = pytest.mark.slow


@pytest.fixture
def world(tmp_path: Path, fake: FakeGitHub) -> World:
    fake.roles.update(alice="write", bob="write", carol="write")
    return make_world(tmp_path, fake)


def carol_pushes_to_alices_pr(world: World, fake: FakeGitHub) -> str:
    head1 = world.commit("feat1", {"todoapp.manifest.yaml": manifest_variant(1)}, "alice")
    fake.add_pull(1, author="alice", head_sha=head1, head_ref="feat1")
    head2 = world.commit("feat1", {"todoapp.manifest.yaml": manifest_variant(2)}, "carol")
    fake.push_head(1, head2, by="carol")
    r = world.run("pull_request", world.pr_event("synchronize", 1), head2)
    assert r.code == 0, r.stderr
    return head2


def approve(world: World, user: str, head: str) -> bool:
    c = world.fake.add_comment(1, user=user, body=world.approve_command(1))
    r = world.run("issue_comment", world.comment_event(1, c), head)
    assert r.code == 0, r.stderr
    return r.outputs["approved"] == "true"


def test_a_write_user_who_pushed_to_the_pr_cannot_approve_it(
    world: World, fake: FakeGitHub
) -> None:
    head = carol_pushes_to_alices_pr(world, fake)
    plan_comment = str(fake.bot_comments(1)[0]["body"])
    assert "who authored or committed none of its commits" in plan_comment
    assert not approve(world, "carol", head)
    reply = str(fake.bot_comments(1)[-1]["body"])
    assert "not counted" in reply and "authored or committed a commit" in reply
    assert fake.latest_status(head)["state"] == "pending"  # type: ignore[index]
    assert fake.sent("GET", r"/pulls/1/commits$")  # the documented endpoint was asked

    # A forged pointer to carol's comment does not count at merge time either.
    merge = world.merge("feat1")
    fake.merge(1, merge)
    r = world.run("push", world.push_event(merge), merge)
    assert r.code == 1 and "no valid approval" in r.stderr, r.stdout + r.stderr
    assert world.state_tip() is None


def test_a_reviewer_with_no_commit_approves_and_the_merge_applies(
    world: World, fake: FakeGitHub
) -> None:
    head = carol_pushes_to_alices_pr(world, fake)
    assert approve(world, "bob", head)
    merge = world.merge("feat1")
    fake.merge(1, merge)
    r = world.run("push", world.push_event(merge), merge)
    assert r.code == 0, r.stdout + r.stderr
    assert r.outputs["success"] == "true"


def test_a_committer_only_is_a_pusher_too(world: World, fake: FakeGitHub) -> None:
    """Carol rebased alice's commit: alice stays the author, carol is the committer."""
    head1 = world.commit("feat1", {"todoapp.manifest.yaml": manifest_variant(1)}, "alice")
    fake.add_pull(1, author="alice", head_sha=head1, head_ref="feat1")
    fake.pull_commits[1] = [fake.commit_item(head1, author="alice", committer="carol")]
    assert world.run("pull_request", world.pr_event("opened", 1), head1).code == 0
    assert not approve(world, "carol", head1)


def test_allow_pusher_approval_on_the_base_branch_lets_the_pusher_approve(
    tmp_path: Path, fake: FakeGitHub
) -> None:
    fake.roles.update(alice="write", carol="write")
    world = make_world(tmp_path, fake, github_settings={"allowPusherApproval": True})
    head = carol_pushes_to_alices_pr(world, fake)
    assert "authored or committed" not in str(fake.bot_comments(1)[0]["body"])
    assert approve(world, "carol", head)


def test_a_pr_cannot_switch_the_rule_off_in_its_own_config(world: World, fake: FakeGitHub) -> None:
    world.github_settings = {"allowPusherApproval": True}
    world.write_config()
    head1 = world.commit(
        "feat1",
        {
            "todoapp.manifest.yaml": manifest_variant(1),
            "averos.config.json": (world.dev / "averos.config.json").read_text(),
        },
        "alice",
    )
    fake.add_pull(1, author="alice", head_sha=head1, head_ref="feat1")
    head2 = world.commit("feat1", {"todoapp.manifest.yaml": manifest_variant(2)}, "carol")
    fake.push_head(1, head2, by="carol")
    assert world.run("pull_request", world.pr_event("synchronize", 1), head2).code == 0
    assert not approve(world, "carol", head2)


def test_an_invalid_manifest_sets_a_failure_status_with_the_reason(
    world: World, fake: FakeGitHub
) -> None:
    bad = "applicationName: ShopApp\nentities:\n  - name: order\n"  # CON-02 at 3:11
    head = world.commit("feat1", {"todoapp.manifest.yaml": bad}, "broken")
    fake.add_pull(1, author="alice", head_sha=head, head_ref="feat1")
    r = world.run("pull_request", world.pr_event("opened", 1), head)
    assert r.code == 2, r.stdout + r.stderr
    status = fake.latest_status(head)
    assert status is not None and status["state"] == "failure"
    assert status["context"] == "averos-ci/plan"
    assert status["description"].startswith("invalid manifest: todoapp.manifest.yaml:3:11: ")
    assert "CON-02" in status["description"] and len(status["description"]) <= 140


def test_an_api_error_while_planning_still_resolves_the_status(
    world: World, fake: FakeGitHub
) -> None:
    head = world.commit("feat1", {"todoapp.manifest.yaml": manifest_variant(1)}, "change")
    fake.add_pull(1, author="alice", head_sha=head, head_ref="feat1")
    fake.fail_next("GET", r"/issues/1/comments$", 404)
    r = world.run("pull_request", world.pr_event("opened", 1), head)
    assert r.code == 1, r.stdout + r.stderr
    status = fake.latest_status(head)
    assert status is not None and status["state"] == "failure"
    assert status["description"].startswith("plan failed: ")


def test_apply_logs_survive_the_job_and_their_path_is_a_step_output(
    tmp_path: Path, fake: FakeGitHub
) -> None:
    from averos_ci.execute.logs import node_log_name

    failing = "translation-entry:fr:extra.k0"
    fake.roles.update(alice="write", bob="write")
    world = make_world(tmp_path, fake, adapter_options={"latencyMs": 1, "failNodes": [failing]})
    head = world.commit("feat1", {"todoapp.manifest.yaml": manifest_variant(1)}, "change")
    fake.add_pull(1, author="alice", head_sha=head, head_ref="feat1")
    assert world.run("pull_request", world.pr_event("opened", 1), head).code == 0
    assert approve(world, "bob", head)
    merge = world.merge("feat1")
    fake.merge(1, merge)
    r = world.run("push", world.push_event(merge), merge)
    assert r.code == 1, r.stdout + r.stderr
    logs = Path(r.outputs["logs-path"])
    runner_temp = world.root / "jobs" / f"{world.jobs}-runner"  # the job's $RUNNER_TEMP
    assert logs == runner_temp / "averos-ci" / "default" / "logs"
    assert (logs / "nodes" / node_log_name(failing)).is_file()  # the failing node's own log
    assert failing in (logs / "events.jsonl").read_text(encoding="utf-8")
    assert Path(r.outputs["junit-path"]).parent == logs.parent
    assert f"see the logs in {logs}" in r.stderr
    checkout = world.root / "jobs" / str(world.jobs)
    assert not (checkout / ".averos" / "logs").exists()  # never in the checkout


def test_an_invalid_config_still_fails_the_plan_status(world: World, fake: FakeGitHub) -> None:
    config = (world.dev / "averos.config.json").read_text(encoding="utf-8")
    broken = config.replace('"mode": "strict"', '"mode": "sometimes"')
    assert broken != config
    head = world.commit("feat1", {"averos.config.json": broken}, "bad mode")
    fake.add_pull(1, author="alice", head_sha=head, head_ref="feat1")
    r = world.run("pull_request", world.pr_event("opened", 1), head)
    assert r.code == 2 and "/mode" in r.stderr, r.stdout + r.stderr
    status = fake.latest_status(head)
    assert status is not None and status["state"] == "failure"
    assert status["context"] == "averos-ci/plan"
    assert status["description"].startswith("invalid config: averos.config.json:")
    assert "/mode" in status["description"]
