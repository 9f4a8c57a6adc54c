"""Per-project approvers, end to end on the fake GitHub API (issue 40): a project's plan is
approved only by its owners — the ``policy.owners`` of its config, else the CODEOWNERS entry
for its folder — both as of the base branch, on top of the repository-permission rule.

The approval matrix: an owner's approval counts; a write member who is not an owner does not
(the reply names the owners); a team owner cannot be resolved and the reply says so; a pull
request that rewrites CODEOWNERS to name its author changes nothing (the author, though
self-approval is allowed, is still refused); the apply takes only an owner's approval and
refuses the project whose only owner is a team. Jobs are separate processes, matrix-style."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.github.gh_fake import FakeGitHub
from tests.github.gh_monorepo import Monorepo, make_monorepo, project_name
from tests.github.gh_world import git

pytestmark = pytest.mark.slow

CODEOWNERS = """\
# the default owner, then one entry per project folder: the last match wins
*            @bob
/apps/p00/   @carol
/apps/p01/   @acme/app-team
"""


def base_files(mono: Monorepo) -> dict[str, str]:
    files = {".github/CODEOWNERS": CODEOWNERS}
    for i in range(3):
        files.update(mono.project_files(i))
    p00, p02 = f"{project_name(0)}/averos.config.json", f"{project_name(2)}/averos.config.json"
    first = json.loads(files[p00])
    first["github"]["allowSelfApproval"] = True  # so that only the owners rule refuses alice
    files[p00] = json.dumps(first, indent=2) + "\n"
    third = json.loads(files[p02])
    third["policy"] = {"owners": ["@dave"]}  # the config's list wins over CODEOWNERS' `*`
    files[p02] = json.dumps(third, indent=2) + "\n"
    return files


def test_only_owners_approve_read_from_the_base_branch(tmp_path: Path, fake: FakeGitHub) -> None:
    fake.page_size = 100
    mono = make_monorepo(tmp_path, fake)
    fake.roles.update(carol="write", dave="write")
    world = mono.world
    (world.dev / ".github").mkdir()
    fake.base_sha = world.commit("main", base_files(mono), "three projects and their owners")
    p00, p01, p02 = (project_name(i) for i in range(3))

    # alice's pull request changes the three manifests and names herself the owner of all
    change = {".github/CODEOWNERS": "* @alice\n"}
    for i in range(3):
        change.update(
            {k: v for k, v in mono.project_files(i, extra_entities=1).items() if "manifest" in k}
        )
    head = mono.open_pr(1, "feature", change)
    opened = world.pr_event("opened", 1)
    mono.wait_all([mono.start("pull_request", opened, head, p) for p in (p00, p01, p02)], "plan")
    hashes = {p: mono.plan_hash(1, p) for p in (p00, p01, p02)}
    sticky = {
        p: next(c["body"] for c in fake.bot_comments(1) if p in c["body"][:60]) for p in hashes
    }
    assert "Awaiting approval** from an owner of `apps/p00` (@\u200bcarol, from " in sticky[p00]
    assert ".github/CODEOWNERS line 3" in sticky[p00]
    assert "(@\u200bdave, from policy.owners)" in sticky[p02]

    def approve(*pairs: tuple[str, str]) -> dict[tuple[str, str], str]:
        jobs = []
        for user, project in pairs:
            c = fake.add_comment(1, user=user, body=f"/averos approve {hashes[project][:12]}")
            jobs.append(mono.start("issue_comment", world.comment_event(1, c), head, project))
        return {
            pair: r.outputs.get("approved", "")
            for pair, r in zip(pairs, mono.wait_all(jobs, "approve"), strict=True)
        }

    refused = approve(("bob", p00), ("alice", p00), ("bob", p01), ("bob", p02))
    assert set(refused.values()) == {"false"}, refused
    replies = [  # mentions are shown with a zero-width space: nobody is pinged
        c["body"].replace("\u200b", "")
        for c in fake.bot_comments(1)
        if "approval not counted" in c["body"]
    ]
    not_owner = [r for r in replies if "is not an owner of project" in r]
    assert len(not_owner) == 4, replies
    # bob is CODEOWNERS' default owner, but the later /apps/p00/ entry wins
    assert any("@bob is not an owner of project apps/p00" in r for r in not_owner)
    # the pull request's CODEOWNERS (`* @alice`) is not read: the base branch's is
    assert any("@alice is not an owner of project apps/p00" in r for r in not_owner)
    assert any("@acme/app-team cannot be resolved" in r for r in not_owner)
    assert any(
        "@bob is not an owner of project apps/p02" in r and "policy.owners" in r for r in not_owner
    )

    counted = approve(("carol", p00), ("dave", p02))
    assert set(counted.values()) == {"true"}, counted
    statuses = {s["context"]: s for s in fake.statuses if s["sha"] == head}
    assert statuses[f"averos-ci/plan/{p00}"]["state"] == "success"
    assert "carol" in statuses[f"averos-ci/plan/{p00}"]["description"]
    assert statuses[f"averos-ci/plan/{p01}"]["state"] == "pending"

    merge = mono.merge(1, "feature")
    results = mono.wait(mono.start_applies([(merge, p) for p in (p00, p01, p02)]))
    by_project = dict(zip((p00, p01, p02), results, strict=True))
    assert by_project[p00].code == 0, by_project[p00].stderr
    assert by_project[p02].code == 0, by_project[p02].stderr
    assert by_project[p01].code == 1, by_project[p01].stdout
    # bob's comment pins p01's plan, but the apply re-derives the approvals with the owners
    assert "has no valid approval for head" in by_project[p01].stderr
    assert mono.state_of(p00) is not None and mono.state_of(p01) is None
    assert git(world.origin, "rev-parse", "main") == merge
