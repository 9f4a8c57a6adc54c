"""The commit-back pull request is opened only from a commit this apply made.

When the default branch refuses the bot's push (protection), the generated files go to
``averos/apply-<planHash12>`` and a pull request. The planHash is public (the plan comment),
so a user with write access can push that branch first, with a ``backdoor.ts`` on top of the
merge. The apply must not take that branch as "a re-run of this job": it reuses a branch
only when its tip is exactly what this run would commit (parent: the merge; tree: the
generated files), and otherwise pushes its commit under a fresh name."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.github.gh_fake import FakeGitHub
from tests.github.gh_world import World, git, make_world
from tests.scenarios.github.test_gh_angular_journey import PROTECTED_HOOK
from tests.scenarios.github.test_gh_edges import WritingAdapter, run_in_process
from tests.security._attack import approved_merge

pytestmark = pytest.mark.slow
PREFIX = "averos/apply-"


@pytest.fixture
def world(tmp_path: Path, fake: FakeGitHub) -> World:
    fake.roles.update(alice="write", bob="write", mallory="write")
    w = make_world(tmp_path, fake)
    hook = w.origin / "hooks" / "pre-receive"
    hook.write_text(PROTECTED_HOOK, encoding="utf-8")
    hook.chmod(0o755)
    return w


def prepare_branch(world: World, branch: str, base: str, files: dict[str, str]) -> str:
    """What a write user pushes: ``branch`` = ``base`` + ``files``; its tip."""
    work = world.root / "mallory-clone"
    if not work.exists():
        git(world.root, "clone", "-q", str(world.origin), str(work))
    git(work, "fetch", "-q", "origin")
    git(work, "checkout", "-q", "-B", branch, base)
    for rel, text in files.items():
        (work / rel).parent.mkdir(parents=True, exist_ok=True)
        (work / rel).write_text(text, encoding="utf-8")
    git(work, "add", "-A")
    who = ("-c", "user.name=Mallory", "-c", "user.email=mallory@example.com")
    git(work, *who, "commit", "-q", "-m", "averos-ci: generated workspace [skip ci]")
    git(work, "push", "-q", "-f", "origin", f"{branch}:{branch}")
    return git(work, "rev-parse", "HEAD")


def the_pull_request(world: World, fake: FakeGitHub) -> tuple[str, str]:
    """(head branch, head commit) of the one pull request the apply opened."""
    assert len(fake.created_pulls) == 1, fake.created_pulls
    pr = fake.pulls[fake.created_pulls[0]]
    return str(pr["head"]["ref"]), str(pr["head"]["sha"])


def recorded_commit(world: World) -> str:
    state = json.loads(world.state_files()["default/state.json"])
    return str(state["workspace"]["pullRequest"]["commit"])


def test_a_prepared_branch_is_not_the_pull_requests_head(
    world: World, fake: FakeGitHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    approved, merge = approved_merge(world, fake)
    branch = PREFIX + approved[:12]
    planted = prepare_branch(
        world, branch, merge, {"workspace/backdoor.ts": "fetch('https://evil.example')\n"}
    )
    result, _ = run_in_process(world, monkeypatch, merge, WritingAdapter())
    assert getattr(result, "success", False) and result.applied, str(result)
    assert git(world.origin, "rev-parse", "main") == merge  # main refused the bot's push

    head_ref, head = the_pull_request(world, fake)
    assert head != planted, "the pull request was opened from the attacker's commit"
    assert head_ref.startswith(branch) and head_ref != branch, head_ref
    assert git(world.origin, "rev-parse", f"{head_ref}") == head
    assert git(world.origin, "rev-parse", f"{head}^") == merge
    tree = git(world.origin, "ls-tree", "-r", "--name-only", head).splitlines()
    assert "workspace/backdoor.ts" not in tree and "workspace/gen/application_ToDoApp.txt" in tree
    assert recorded_commit(world) == head
    assert git(world.origin, "rev-parse", branch) == planted  # theirs is left alone


# -- the rule itself, on a bare origin ------------------------------------------------------

WHO = ("-c", "user.name=Dev", "-c", "user.email=dev@example.com")


@pytest.fixture
def repo(tmp_path: Path) -> tuple[Path, str]:
    """(a clone, the commit standing for the merge) of a bare origin."""
    origin, clone = tmp_path / "origin.git", tmp_path / "clone"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(origin))
    git(tmp_path, "clone", "-q", str(origin), str(clone))
    (clone / "README.md").write_text("hi\n", encoding="utf-8")
    git(clone, "add", "-A")
    git(clone, *WHO, "commit", "-q", "-m", "merge")
    git(clone, "push", "-q", "origin", "HEAD:main")
    return clone, git(clone, "rev-parse", "HEAD")


def generated(tmp_path: Path, text: str = "app\n") -> dict[str, Path | None]:
    file = tmp_path / "gen" / "app.ts"
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_text(text, encoding="utf-8")
    return {"workspace/app.ts": file}


def test_a_branch_is_reused_only_when_it_holds_exactly_this_change(
    repo: tuple[Path, str], tmp_path: Path
) -> None:
    from averos_ci.statebranch.keep import land_on_branch
    from averos_ci.statebranch.state_branch import StateBranch

    clone, merge = repo
    target = StateBranch(clone, branch="averos/apply-x")
    changes = generated(tmp_path)
    first = target.commit_paths(parent=merge, changes=changes, message="attempt 1")
    assert land_on_branch(target, first) == first  # absent: pushed
    # another attempt of the job makes the same change (a new commit): the branch is reused
    again = target.commit_paths(parent=merge, changes=changes, message="attempt 2")
    assert again != first and land_on_branch(target, again) == first

    extra = generated(tmp_path / "x") | {"workspace/backdoor.ts": tmp_path / "x" / "gen" / "app.ts"}
    planted = target.commit_paths(parent=merge, changes=extra, message="attempt 1")
    other = StateBranch(clone, branch="averos/apply-y")
    assert other.push(planted)  # a file on top: not this change
    assert land_on_branch(other, again) is None
    assert git(clone, "ls-remote", "origin", "refs/heads/averos/apply-y").split()[0] == planted

    elsewhere = target.commit_paths(parent=first, changes=changes, message="attempt 1")
    moved = StateBranch(clone, branch="averos/apply-z")
    assert moved.push(elsewhere)  # the same files on another parent: not this change either
    assert land_on_branch(moved, again) is None
