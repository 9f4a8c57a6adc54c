"""Finding 4 (Low), as attacks: an option-looking ``github.remote``, a crafted state-branch
tree, a flood of warnings, a flood of invalid approve commands, and a pull request that
rewrites the settings the flow trusts (status name, state branch, …)."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from averos_ci.forge.api import GitHubAPIError, GitHubClient
from averos_ci.statebranch.state_branch import GitError, StateBranch
from tests.github.gh_fake import TOKEN, FakeGitHub
from tests.github.gh_world import World, git, manifest_variant

pytestmark = pytest.mark.slow


def test_an_option_looking_remote_never_reaches_git(
    world: World, fake: FakeGitHub, tmp_path: Path
) -> None:
    pwned = tmp_path / "pwned"
    config = json.loads((world.dev / "averos.config.json").read_text(encoding="utf-8"))
    config["github"]["remote"] = f"--upload-pack=touch {pwned};git-upload-pack"
    head = world.commit("feat1", {"averos.config.json": json.dumps(config)}, "remote")
    fake.add_pull(1, author="alice", head_sha=head, head_ref="feat1")
    r = world.run("pull_request", world.pr_event("opened", 1), head)
    assert r.code == 2, r.stdout + r.stderr
    assert "/github/remote" in r.stderr and not pwned.exists()


def test_a_crafted_state_tree_cannot_write_outside_the_export(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    git(tmp_path, "init", "-q", str(repo))

    def obj(*args: str, stdin: str) -> str:
        return subprocess.run(
            ["git", *args], cwd=repo, input=stdin, capture_output=True, text=True, check=True
        ).stdout.strip()

    blob = obj("hash-object", "-w", "--stdin", stdin="escaped\n")
    link = obj("hash-object", "-w", "--stdin", stdin="/etc/passwd")
    up = obj("mktree", stdin=f"100644 blob {blob}\tevil\n")

    def commit_of(entries: str) -> str:
        project = obj("mktree", stdin=entries)
        root = obj("mktree", stdin=f"040000 tree {project}\tdefault\n")
        return obj(
            "-c", "user.name=m", "-c", "user.email=m@x", "commit-tree", root, "-m", "x", stdin=""
        )

    dest = tmp_path / "out" / "default"
    ok = f"100644 blob {blob}\tok.json\n"
    StateBranch(repo).export(commit_of(ok + f"120000 blob {link}\tlink\n"), "default", dest)
    assert [p.name for p in dest.rglob("*")] == ["ok.json"]  # the symlink blob is skipped
    assert not (dest / "link").is_symlink()

    with contextlib.suppress(GitError):  # refused outright, or the entry skipped
        StateBranch(repo).export(commit_of(ok + f"040000 tree {up}\t..\n"), "default", dest)
    assert not (tmp_path / "out" / "evil").exists()


def test_a_flood_of_warnings_prints_a_bounded_number_of_annotations(tmp_path: Path) -> None:
    code = (
        "from averos_ci.forge.actions_env import annotate\n"
        "for i in range(5000): annotate('warning', f'unknown key k{i}')\n"
    )
    env = {**os.environ, "GITHUB_ACTIONS": "true"}
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    ).stdout
    annotations = [line for line in out.splitlines() if line.startswith("::warning::")]
    assert 50 <= len(annotations) <= 52, len(annotations)
    assert len(out.splitlines()) < 700
    assert "5000 warning messages in all" in annotations[-1]


def test_repeated_invalid_approve_commands_get_one_reply(world: World, fake: FakeGitHub) -> None:
    head = world.commit("feat1", {"todoapp.manifest.yaml": manifest_variant(1)}, "one entry")
    fake.add_pull(1, author="alice", head_sha=head, head_ref="feat1")
    assert world.run("pull_request", world.pr_event("opened", 1), head).code == 0
    before = len(fake.bot_comments(1))
    for _ in range(4):
        spam = fake.add_comment(1, user="bob", body="/averos approve")
        r = world.run("issue_comment", world.comment_event(1, spam), head)
        assert r.code == 0 and r.outputs["approved"] == "false", r.stdout + r.stderr
    replies = fake.bot_comments(1)[before:]
    assert len(replies) == 1, [c["body"] for c in replies]


def test_a_pull_request_cannot_rename_its_status_or_state_branch(
    world: World, fake: FakeGitHub
) -> None:
    config = json.loads((world.dev / "averos.config.json").read_text(encoding="utf-8"))
    config["github"].update(statusContext="ci/always-green", stateBranch="attacker-state")
    head = world.commit("feat1", {"averos.config.json": json.dumps(config)}, "rename")
    fake.add_pull(1, author="alice", head_sha=head, head_ref="feat1")
    r = world.run("pull_request", world.pr_event("opened", 1), head)
    assert r.code == 0, r.stdout + r.stderr
    status = fake.latest_status(head)
    assert status is not None, fake.statuses
    assert status["context"] == "averos-ci/plan"  # the base's name: the one that gates merges
    assert status["state"] == "pending"  # no plan changes, but the settings change is approved
    assert r.outputs["approved"] == "false"
    assert "statusContext" in str(fake.bot_comments(1)[0]["body"])


def test_a_flood_of_reviews_fails_closed_with_a_way_out(fake: FakeGitHub) -> None:
    """More than 100 pages of reviews cannot be read to the end: whoever depends on them
    (the approval check of an apply) fails with a hint, never decides on a partial list."""
    for i in range(201):  # the fake's pages hold 2 items: 101 pages
        fake.add_review(1, user=f"u{i}", state="COMMENTED", commit_id="0" * 40)
    client = GitHubClient(token=TOKEN, repository=fake.repo, api_url=fake.url, max_retries=0)
    try:
        with pytest.raises(GitHubAPIError) as info:
            list(client.reviews(1))
    finally:
        client.close()
    assert "more than 100 pages" in info.value.message and "fails closed" in info.value.message
    assert info.value.hint and "new pull request" in info.value.hint
