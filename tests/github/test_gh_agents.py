"""End to end (issue 26 item 2): an agent opens a pull request; it gets its plan comment; the
agent's own ``/averos approve <hash>`` is refused; a person's approval counts; the merge
applies."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.github.gh_fake import FakeGitHub
from tests.github.gh_steps import merge_and_apply, sticky
from tests.github.gh_world import make_world, manifest_variant

pytestmark = pytest.mark.slow

AGENT = "averos-agent"


def test_an_agent_proposes_and_a_person_approves(tmp_path: Path, fake: FakeGitHub) -> None:
    fake.roles.update({AGENT: "write", "bob": "write"})
    world = make_world(tmp_path, fake, github_settings={"agentIdentities": [AGENT]})
    head = world.commit("agent/entry", {"todoapp.manifest.yaml": manifest_variant(1)}, "entry")
    fake.add_pull(1, author=AGENT, head_sha=head, head_ref="agent/entry")
    r = world.run("pull_request", world.pr_event("opened", 1), head)
    assert r.code == 0, r.stderr
    plan = r.outputs["plan-hash"]
    assert sticky(fake, 1)[1].plan_hash == plan  # the plan comment, as for anyone

    c = fake.add_comment(1, user=AGENT, body=world.approve_command(1))
    r = world.run("issue_comment", world.comment_event(1, c), head)
    assert r.outputs["approved"] == "false", r.stdout + r.stderr
    replies = [x["body"] for x in fake.bot_comments(1) if "not counted" in x["body"]]
    assert any("agent identity" in b for b in replies), replies

    c = fake.add_comment(1, user="bob", body=world.approve_command(1))
    r = world.run("issue_comment", world.comment_event(1, c), head)
    assert r.outputs["approved"] == "true", r.stdout + r.stderr

    r = merge_and_apply(world, "agent/entry", 1)
    assert r.code == 0, r.stdout + r.stderr
    assert f"plan {plan} approved by bob" in r.stdout, r.stdout
    assert "default/state.json" in world.state_files()
