"""Steps and worlds the end-to-end GitHub tests share: a one-entity manifest, a pull request
opened and planned, approved, merged and applied, the sticky comment and the commit status
read back, and the worlds of the plain-review and policy tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from averos_ci.review.comment import PlanMeta
from tests.github.gh_fake import FakeGitHub
from tests.github.gh_world import JobResult, World, git, make_world, manifest_variant


def one_entity_manifest(description: str) -> str:
    """The smallest application: one entity (``Task``) with its service."""
    return f"""\
applicationName: ToDoApp
description: {description}
defaultLanguageCode: en
enableAuthentication: false
enableExternalEntityMapping: true
entities:
  - name: Task
    sname: TaskService
    members:
      - {{ memberNature: simple, ename: Task, mname: taskId, memberType: string, memberTag: ID }}
      - {{ memberNature: simple, ename: Task, mname: title, memberType: string,
          memberTag: BusinessID }}
serviceConfigurations:
  - type: service
    name: TaskServiceConfiguration
    id: TaskService
    apiHost: 127.0.0.1
    apiPort: 3333
    apiProtocol: http
    apiEndPoint: /api/tasks
    apiHTTPQueryBuilder: mongodb
"""


def plain_review_world(tmp_path: Path, fake: FakeGitHub) -> World:
    """Writers, an admin, a reader and a bot with write access."""
    fake.roles.update(alice="write", bob="write", dave="write", carol="admin", reader="read")
    fake.roles["renovate[bot]"] = "write"
    return make_world(tmp_path, fake)


def policy_world(tmp_path: Path, fake: FakeGitHub, policy: dict[str, Any]) -> World:
    """A world whose default branch's config has ``policy`` (what pull requests merge into)."""
    fake.roles.update(alice="write", bob="write", dave="write", maint="maintain", carol="admin")
    world = make_world(tmp_path, fake)
    config = json.loads((world.dev / "averos.config.json").read_text(encoding="utf-8"))
    config["policy"] = policy
    fake.base_sha = world.commit("main", {"averos.config.json": json.dumps(config)}, "policy")
    return world


def sticky(fake: FakeGitHub, number: int) -> tuple[str, PlanMeta]:
    """The body and metadata of the plan comment on #``number``."""
    for c in fake.bot_comments(number):
        meta = PlanMeta.decode(str(c["body"]))
        if meta is not None and "averos-ci:plan" in str(c["body"]):
            return str(c["body"]), meta
    raise AssertionError(f"no plan comment on #{number}")


def open_pr(
    world: World, number: int, branch: str, manifest: str | int, *, base: str = "main"
) -> str:
    """PR ``number`` by alice from ``branch`` with ``manifest`` (an int: that
    :func:`manifest_variant`), planned; its head."""
    text = manifest_variant(manifest) if isinstance(manifest, int) else manifest
    head = world.commit(branch, {"todoapp.manifest.yaml": text}, branch, base=base)
    world.fake.add_pull(number, author="alice", head_sha=head, head_ref=branch)
    r = world.run("pull_request", world.pr_event("opened", number), head)
    assert r.code == 0, r.stdout + r.stderr
    return head


def open_pr_from_main(world: World, number: int, manifest: str) -> str:
    """PR ``number`` by alice from main's current tip (branch ``change-<number>``), not
    planned yet; its head."""
    git(world.dev, "checkout", "-q", "main")
    git(world.dev, "pull", "-q", "--ff-only", "origin", "main")
    world.fake.base_sha = git(world.dev, "rev-parse", "HEAD")
    branch = f"change-{number}"
    head = world.commit(branch, {"todoapp.manifest.yaml": manifest}, f"manifest v{number}")
    world.fake.add_pull(number, author="alice", head_sha=head, head_ref=branch)
    return head


def approve(world: World, number: int, user: str, head: str) -> JobResult:
    """``user`` comments the approve line of the plan shown on #``number``."""
    c = world.fake.add_comment(number, user=user, body=world.approve_command(number))
    r = world.run("issue_comment", world.comment_event(number, c), head)
    assert r.code == 0, r.stdout + r.stderr
    return r


def approved_pr(world: World, number: int, branch: str, extra: int, *, base: str = "main") -> str:
    """Open PR ``number`` on ``branch`` (the manifest with ``extra`` more entries), plan it and
    approve it by bob's comment; returns the head."""
    head = world.commit(
        branch, {"todoapp.manifest.yaml": manifest_variant(extra)}, f"variant {extra}", base=base
    )
    world.fake.add_pull(number, author="alice", head_sha=head, head_ref=branch)
    r = world.run("pull_request", world.pr_event("opened", number), head)
    assert r.code == 0, r.stderr
    c = world.fake.add_comment(number, user="bob", body=world.approve_command(number))
    r = world.run("issue_comment", world.comment_event(number, c), head)
    assert r.code == 0 and r.outputs["approved"] == "true", r.stdout + r.stderr
    return head


def merge_and_apply(world: World, branch: str, number: int) -> JobResult:
    before = world.branch_sha("main")
    merge = world.merge(branch)
    world.fake.merge(number, merge)
    return world.run("push", world.push_event(merge, before=before), merge)


def apply_first_pr(world: World) -> World:
    """PR #1 (the example plus one entry) planned through the plan workflow, approved by bob,
    merged and applied: main holds its generated application, so the next plans of a
    regenerating adapter have a workspace to merge into."""
    head = open_pr_from_main(world, 1, manifest_variant(1))
    assert world.plan_workflow(1, head).plan.code == 0
    approve(world, 1, "bob", head)
    r = merge_and_apply(world, "change-1", 1)
    assert r.code == 0, r.stdout + r.stderr
    return world


def status(fake: FakeGitHub, sha: str) -> dict[str, Any]:
    found = fake.latest_status(sha)
    assert found is not None
    return found
