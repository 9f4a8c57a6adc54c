"""The plan comment is one list of sections, whichever flow posts it: the recomputed plan of a
merge the catch-up stopped at shows the same sections as the pull request's first plan (the
policy, the execution settings, the plan, the approval rules as configured)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.github.gh_fake import FakeGitHub
from tests.github.gh_steps import (
    apply_first_pr,
    approve,
    merge_and_apply,
    open_pr_from_main,
    sticky,
)
from tests.github.gh_world import World, git, make_world, manifest_variant

pytestmark = pytest.mark.slow

# what each section shows first (averos_ci.review.sections.SECTIONS)
MARKS = {
    "status": "<!-- averos-ci:status -->",
    "policy": "**Policy:** passed",
    "execution diff": "<summary>Execution settings</summary>",
    "plan": "<summary>Plan</summary>",
    "how to approve": "To approve, a user with **write** permission",
    "plain reviews": "a plain approving review counts too",
}


def sections(body: str) -> list[str]:
    """The sections ``body`` shows, in the order it shows them."""
    found = [(body.find(mark), name) for name, mark in MARKS.items() if mark in body]
    return [name for _, name in sorted(found)]


@pytest.fixture
def world(tmp_path: Path, fake: FakeGitHub) -> World:
    """Plain reviews count, and the default branch has a policy."""
    fake.roles.update(alice="write", bob="write")
    world = make_world(tmp_path, fake, github_settings={"plainReviewApprovals": True})
    config = json.loads((world.dev / "averos.config.json").read_text(encoding="utf-8"))
    config["policy"] = {"maxNodes": 500}
    fake.base_sha = world.commit("main", {"averos.config.json": json.dumps(config)}, "policy")
    return world


def test_the_recomputed_plan_shows_the_same_sections_as_the_first_plan(
    world: World, fake: FakeGitHub
) -> None:
    head = open_pr_from_main(world, 1, manifest_variant(1))
    r = world.run("pull_request", world.pr_event("opened", 1), head, command="plan")
    assert r.code == 0, r.stdout + r.stderr
    first, _ = sticky(fake, 1)
    assert sections(first) == list(MARKS), first[:3000]

    refused = merge_and_apply(world, "change-1", 1)  # merged without an approval
    assert refused.code == 1, refused.stdout + refused.stderr
    body, meta = sticky(fake, 1)
    assert "Not applied after the merge" in body
    assert sections(body) == sections(first)
    # the approval command pins the recomputed plan, on the head the merge came from
    assert re.search(rf"^/averos approve {meta.plan_hash[:12]}$", body, re.M)
    assert meta.policy is not None and meta.base_state is not None


# a file of the code change section: its name and status, then its fenced diff
DIFF_BLOCK = re.compile(
    r"^`(?P<path>[^`]+)` \((?P<status>\w+), [^\n]*\n\n```+diff\n(?P<diff>.*?)\n```+$",
    re.M | re.S,
)


def test_the_comment_of_a_code_change_shows_each_files_changed_lines(
    tmp_path: Path, fake: FakeGitHub
) -> None:
    """The file-writing mock regenerates: the complete job's comment shows each file's diff,
    and the lines it adds are the lines that land on main once that plan is approved."""
    fake.roles.update(alice="write", bob="write")
    world = make_world(tmp_path, fake, adapter_options={"writeFiles": True})
    apply_first_pr(world)
    head = open_pr_from_main(world, 2, manifest_variant(2))
    assert world.plan_workflow(2, head).plan.code == 0
    body, _ = sticky(fake, 2)
    shown = {m["path"]: m["diff"] for m in DIFF_BLOCK.finditer(body)}
    assert shown, body[-4000:]
    assert "<details><summary>Changed files" in body or "<details><summary>Created files" in body
    added = {
        p: [x[1:] for x in d.splitlines() if x.startswith("+") and not x.startswith("+++")]
        for p, d in shown.items()
    }
    assert any(added.values()), shown

    approve(world, 2, "bob", head)
    assert merge_and_apply(world, "change-2", 2).code == 0
    for path, lines in added.items():
        landed = git(world.origin, "show", f"main:workspace/{path}").splitlines()
        assert all(line in landed for line in lines), (path, lines)
