"""The approval rules come from the base commit's config (fetched into a shallow checkout),
the built-in defaults when it has none; the claim and run records carry formatVersion."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from averos_ci.errors import ConfigError
from averos_ci.forge.settings import GitHubSettings, Permission
from averos_ci.review.trust import base_settings
from averos_ci.statebranch.claim import CLAIM, read_claim, write_claim
from averos_ci.statebranch.state_branch import GitError, StateBranch
from tests.github.gh_world import git


def commit(repo: Path, files: dict[str, str], message: str) -> str:
    for rel, text in files.items():
        (repo / rel).write_text(text, encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)
    git(repo, "push", "-q", "origin", "HEAD:main")
    return git(repo, "rev-parse", "HEAD")


def config(github: dict[str, Any]) -> str:
    return json.dumps({"manifestPath": "m.yaml", "github": github})


@pytest.fixture
def history(tmp_path: Path) -> tuple[Path, list[str]]:
    origin = tmp_path / "origin.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(origin))
    dev = tmp_path / "dev"
    git(tmp_path, "clone", "-q", str(origin), str(dev))
    shas = [
        commit(dev, {"README.md": "no config yet\n"}, "first"),
        commit(
            dev,
            {"averos.config.json": config({"approvalPermission": "admin", "botLogin": "me[bot]"})},
            "adopt",
        ),
        commit(dev, {"averos.config.json": "{ not json"}, "break it"),
        commit(
            dev,
            {"averos.config.json": config({"allowSelfApproval": True, "botLogin": "alice"})},
            "the PR",
        ),
    ]
    return origin, shas


def context(checkout: Path, pr_settings: GitHubSettings) -> Any:
    return SimpleNamespace(
        config=SimpleNamespace(config_path=checkout / "averos.config.json"),
        repo_root=checkout.resolve(),
        settings=pr_settings,
        state_branch=lambda: StateBranch(checkout),
    )


def test_rules_are_read_from_the_base_commit_in_a_shallow_checkout(
    tmp_path: Path, history: tuple[Path, list[str]]
) -> None:
    origin, (first, adopt, broken, pr) = history
    job = tmp_path / "job"
    git(tmp_path, "clone", "-q", "--depth=1", f"file://{origin}", str(job))
    assert git(job, "rev-parse", "HEAD") == pr
    mine = GitHubSettings(allow_self_approval=True, bot_login="alice", state_branch="x")
    ctx = context(job, mine)

    s = base_settings(ctx, adopt)  # not in the shallow clone: fetched by sha
    assert s.approval_permission is Permission.ADMIN and s.bot_login == "me[bot]"
    assert s.allow_self_approval is False
    assert s.state_branch == "averos-state"  # the base's (its default), never the PR's

    for base in (first, "0" * 40, None):  # no config at the base, or no base: defaults
        s = base_settings(ctx, base)
        assert (s.approval_permission, s.allow_self_approval, s.bot_login) == (
            Permission.WRITE,
            False,
            "github-actions[bot]",
        )

    with pytest.raises(ConfigError, match="at the base commit"):
        base_settings(ctx, broken)
    with pytest.raises(GitError):
        base_settings(ctx, "f" * 40)
    with pytest.raises(GitError):
        base_settings(ctx, "--upload-pack=touch /tmp/x")


def test_claim_and_run_records_carry_a_format_version(tmp_path: Path) -> None:
    write_claim(tmp_path, None, plan_hash="a" * 64, sha="b" * 40, pr=1, run_url=None)
    data = json.loads((tmp_path / CLAIM).read_text(encoding="utf-8"))
    assert data["formatVersion"] == 1 and data["planHash"] == "a" * 64
    assert read_claim(tmp_path) == data
    (tmp_path / CLAIM).write_text(json.dumps({**data, "formatVersion": 2}), encoding="utf-8")
    with pytest.raises(GitError, match="formatVersion 2"):
        read_claim(tmp_path)
    assert not list(tmp_path.glob(".*.tmp"))  # atomic writes leave no temp files
