"""Issue 26 item 2: an agent's token can comment ``/averos approve`` or submit an approving
review like anyone with write access; hiding tools is not the boundary. The logins listed in
the base branch's ``github.agentIdentities`` never approve — not someone else's pull
request, and not their own even with ``allowSelfApproval: true``."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.github.gh_fake import FakeGitHub
from tests.github.gh_steps import open_pr
from tests.github.gh_world import World, make_world, manifest_variant

pytestmark = pytest.mark.slow

AGENT = "Averos-Agent"


@pytest.fixture
def world(tmp_path: Path, fake: FakeGitHub) -> World:
    fake.roles.update(alice="write", bob="write")
    fake.roles[AGENT] = "write"
    return make_world(
        tmp_path,
        fake,
        github_settings={"agentIdentities": [AGENT.lower()], "allowSelfApproval": True},
    )


def test_an_agents_approval_comment_never_counts(world: World, fake: FakeGitHub) -> None:
    head = open_pr(world, 1, "feat1", 1)  # alice's pull request
    c = fake.add_comment(1, user=AGENT, body=world.approve_command(1))  # any letter case
    r = world.run("issue_comment", world.comment_event(1, c), head)
    assert r.outputs.get("approved") != "true", r.stdout + r.stderr
    assert "agent identity" in r.stdout, r.stdout


def test_an_agents_approving_review_never_counts(world: World, fake: FakeGitHub) -> None:
    head = open_pr(world, 1, "feat1", 1)
    review = fake.add_review(1, user=AGENT, state="APPROVED", commit_id=head)
    r = world.run("pull_request_review", world.review_event(1, review), head)
    assert r.outputs.get("approved") != "true", r.stdout + r.stderr


def test_an_agent_cannot_approve_its_own_pull_request_even_with_self_approval(
    world: World, fake: FakeGitHub
) -> None:
    head = world.commit("agent1", {"todoapp.manifest.yaml": manifest_variant(1)}, "agent")
    fake.add_pull(1, author=AGENT, head_sha=head, head_ref="agent1")
    assert world.run("pull_request", world.pr_event("opened", 1), head).code == 0
    c = fake.add_comment(1, user=AGENT, body=world.approve_command(1))
    r = world.run("issue_comment", world.comment_event(1, c), head)
    assert r.outputs.get("approved") != "true", r.stdout + r.stderr
    # alice (a person) may: allowSelfApproval is about her own pull requests only
    c = fake.add_comment(1, user="alice", body=world.approve_command(1))
    r = world.run("issue_comment", world.comment_event(1, c), head)
    assert r.outputs.get("approved") == "true", r.stdout + r.stderr
