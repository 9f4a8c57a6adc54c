"""The state branch on a bare origin: orphan, never forced, optimistic rebase of one project."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from averos_ci.forge.actions_env import ActionsEnv, StepReport
from averos_ci.statebranch.errors import ApplyRefused
from averos_ci.statebranch.landing import Backoff
from averos_ci.statebranch.progress import ProjectWriter
from averos_ci.statebranch.state_branch import GitError, StateBranch, token_auth_env
from tests.github.gh_world import git


@pytest.fixture
def clones(tmp_path: Path) -> tuple[Path, Path, Path]:
    origin = tmp_path / "origin.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(origin))
    a, b = tmp_path / "a", tmp_path / "b"
    git(tmp_path, "clone", "-q", str(origin), str(a))
    (a / "README.md").write_text("hi\n")
    git(a, "add", "-A")
    git(a, "commit", "-q", "-m", "init")
    git(a, "push", "-q", "origin", "HEAD:main")
    git(tmp_path, "clone", "-q", str(origin), str(b))
    return origin, a, b


def write(dir_: Path, files: dict[str, str]) -> Path:
    dir_.mkdir(parents=True, exist_ok=True)
    for rel, text in files.items():
        (dir_ / rel).parent.mkdir(parents=True, exist_ok=True)
        (dir_ / rel).write_text(text)
    return dir_


def test_orphan_branch_written_without_touching_the_checkout(
    clones: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    origin, a, _ = clones
    (a / "dirty.txt").write_text("uncommitted\n")
    git(a, "add", "dirty.txt")
    before = git(a, "status", "--porcelain")
    sb = StateBranch(a)
    assert sb.fetch() is None
    src = write(tmp_path / "src", {"state.json": "{}\n", "runs/1.json": "1\n"})
    commit = sb.commit(parent=None, subdir="proj", src=src, message="first")
    assert sb.push(commit)
    assert git(origin, "rev-list", "--count", "averos-state") == "1"  # orphan: no parent
    assert git(origin, "ls-tree", "-r", "--name-only", "averos-state").split() == [
        "proj/runs/1.json",
        "proj/state.json",
    ]
    assert git(a, "status", "--porcelain") == before  # index and tree untouched
    assert git(a, "rev-parse", "--abbrev-ref", "HEAD") == "main"


def test_rejected_push_is_reported_not_forced(
    clones: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    origin, a, b = clones
    sa, sb_ = StateBranch(a), StateBranch(b)
    src = write(tmp_path / "src", {"state.json": "{}\n"})
    assert sa.push(sa.commit(parent=None, subdir="p", src=src, message="a"))
    stale = sb_.commit(parent=None, subdir="p", src=src, message="b")
    tip = git(origin, "rev-parse", "averos-state")
    assert sb_.push(stale) is False
    assert git(origin, "rev-parse", "averos-state") == tip


def test_writer_rebases_over_other_projects_and_refuses_foreign_edits(
    clones: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    origin, a, b = clones
    sa, sb_ = StateBranch(a), StateBranch(b)
    mine = write(tmp_path / "mine", {"state.json": '{"v": 1}\n'})
    assert sa.push(sa.commit(parent=None, subdir="mine", src=mine, message="start"))
    tip = sa.fetch()
    writer = ProjectWriter(sa, "mine", mine, tip, Backoff(first=0, budget=5))
    # another job lands a commit for another project meanwhile
    other = write(tmp_path / "other", {"state.json": '{"o": 1}\n'})
    assert sb_.push(sb_.commit(parent=sb_.fetch(), subdir="other", src=other, message="o"))
    (mine / "state.json").write_text('{"v": 2}\n')
    writer.push("progress")
    files = git(origin, "ls-tree", "-r", "--name-only", "averos-state").split()
    assert files == ["mine/state.json", "other/state.json"]
    assert json.loads(git(origin, "show", "averos-state:mine/state.json")) == {"v": 2}
    # someone else edits *this* project: refused, nothing overwritten
    theirs = write(tmp_path / "theirs", {"state.json": '{"v": 99}\n'})
    assert sb_.push(sb_.commit(parent=sb_.fetch(), subdir="mine", src=theirs, message="x"))
    (mine / "state.json").write_text('{"v": 3}\n')
    with pytest.raises(ApplyRefused, match="changed by another job"):
        writer.push("progress")
    assert json.loads(git(origin, "show", "averos-state:mine/state.json")) == {"v": 99}


def test_git_is_pointed_at_the_credential_helper_without_the_token(
    clones: tuple[Path, Path, Path],
) -> None:
    _, a, _ = clones
    sb = StateBranch(a)
    assert token_auth_env(sb.repo, "origin", token="t0k", server_url="https://github.com") == {}
    git(a, "remote", "set-url", "origin", "https://github.com/o/r.git")
    env = token_auth_env(sb.repo, "origin", token="t0k", server_url="https://github.com")
    assert env["GIT_CONFIG_KEY_1"] == "credential.https://github.com/.helper"
    assert "git_credential.py" in env["GIT_CONFIG_VALUE_1"]
    basic = base64.b64encode(b"x-access-token:t0k").decode()
    assert not any("t0k" in v or basic in v for v in env.values())  # the pipe carries it
    git(a, "config", "http.https://github.com/.extraheader", "AUTHORIZATION: basic x")
    assert token_auth_env(sb.repo, "origin", token="t0k", server_url="https://github.com") == {}


def test_step_outputs_summary_and_mask(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out, summary = tmp_path / "out", tmp_path / "summary"
    env = ActionsEnv.from_environ(
        {
            "GITHUB_EVENT_NAME": "push",
            "GITHUB_EVENT_PATH": "e.json",
            "GITHUB_REPOSITORY": "o/r",
            "GITHUB_OUTPUT": str(out),
            "GITHUB_STEP_SUMMARY": str(summary),
            "GITHUB_TOKEN": "s3cr3t",
            "GITHUB_ACTIONS": "true",
        }
    )
    assert "s3cr3t" not in repr(env)
    env.mask_token()
    assert capsys.readouterr().out == "::add-mask::s3cr3t\n"
    report = StepReport(env)
    report.set(plan_hash="abc", has_changes=True, junit_path=Path("/x/j.xml"))
    report.set(note="two\nlines")
    report.add_summary("# hello")
    report.flush()
    text = out.read_text()
    assert "plan-hash=abc\n" in text and "has-changes=true\n" in text
    assert "junit-path=/x/j.xml\n" in text and "note<<averos_ci_" in text
    assert summary.read_text() == "# hello\n"


def test_a_push_the_remote_refuses_is_a_located_error_and_a_moved_branch_is_false(
    clones: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    origin, a, b = clones
    sa, sb = StateBranch(a), StateBranch(b)
    first = sa.commit(parent=None, subdir="p0", src=write(tmp_path / "0", {"s": "0"}), message="0")
    assert sa.push(first)
    theirs = sb.commit(
        parent=sb.fetch(), subdir="p1", src=write(tmp_path / "1", {"s": "1"}), message="1"
    )
    assert sb.push(theirs)
    stale = sa.commit(parent=first, subdir="p0", src=write(tmp_path / "2", {"s": "2"}), message="2")
    assert sa.push(stale) is False  # the branch moved: not an error, fetch and decide again
    hook = origin / "hooks" / "update"
    hook.write_text('#!/bin/sh\necho "protected branch" >&2\nexit 1\n')
    hook.chmod(0o755)
    mine = sa.commit(
        parent=sa.fetch(), subdir="p0", src=write(tmp_path / "3", {"s": "3"}), message="3"
    )
    with pytest.raises(GitError, match="was refused") as err:
        sa.push(mine)
    assert "contents: write" in (err.value.hint or "")
    assert git(origin, "rev-parse", "averos-state") == theirs
