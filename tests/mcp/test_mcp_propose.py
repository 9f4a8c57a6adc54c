"""propose and status against the fake GitHub API (requests checked against GitHub's OpenAPI
description): a branch pushed to a bare origin, a pull request opened, the token never shown."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs

import pytest
from mcp import ClientSession

from tests.conftest import git
from tests.github.gh_fake import TOKEN, FakeGitHub, running_fake
from tests.mcp.conftest import drive, error_of
from tests.openapi_check import load_spec


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    with running_fake() as fake:
        yield fake


def _env(fake: FakeGitHub) -> dict[str, str]:
    return {"GITHUB_TOKEN": TOKEN, "GITHUB_API_URL": fake.url, "GITHUB_REPOSITORY": fake.repo}


def _origin_sha(origin: Path, branch: str) -> str | None:
    proc = subprocess.run(
        ["git", "-C", str(origin), "rev-parse", "--verify", "--quiet", f"refs/heads/{branch}"],
        capture_output=True,
        text=True,
        check=False,
    )
    return proc.stdout.strip() or None


def test_propose_pushes_a_branch_and_opens_a_pull_request(repo: Path, fake: FakeGitHub) -> None:
    origin = repo.parent / "origin.git"
    fake.branch_sha = lambda branch: _origin_sha(origin, branch)
    (repo / "notes.txt").write_text("not a manifest: never committed by propose\n")
    patch = [{"op": "replace", "path": "/description", "value": "Tasks, by an agent"}]

    async def script(s: ClientSession) -> object:
        edited = await s.call_tool(
            "edit_manifest", {"path": "todoapp.manifest.yaml", "patch": patch}
        )
        assert not edited.is_error, edited.content
        proposed = await s.call_tool(
            "propose",
            {"branch": "agent/description", "title": "Describe the app", "body": "Why: clarity"},
        )
        again = await s.call_tool(
            "propose", {"branch": "agent/description", "title": "Describe the app"}
        )
        state = await s.call_tool("status", {})
        return proposed, again, state

    proposed, again, state = drive(repo, script, _env(fake))
    assert not proposed.is_error, proposed.content
    out = proposed.structured_content
    assert out["branch"] == "agent/description" and out["base"] == "main"
    assert out["files"] == ["todoapp.manifest.yaml"]
    assert out["pullRequest"]["number"] == 1
    assert _origin_sha(origin, "agent/description") == out["commit"]
    author = git(repo, "log", "-1", "--format=%an <%ae>|%cn <%ce>|%s", out["commit"]).strip()
    assert author == (
        "averos-ci agent <agent@averos-ci.invalid>|averos-ci agent <agent@averos-ci.invalid>"
        "|Describe the app"
    )
    assert git(repo, "show", "--name-only", "--format=", out["commit"]).split() == [
        "todoapp.manifest.yaml"
    ]
    assert git(repo, "status", "--porcelain") == "?? notes.txt\n"
    [post] = fake.sent("POST", r"/pulls$")
    assert post.status == 201
    pr = fake.pulls[1]
    assert pr["head"]["ref"] == "agent/description" and pr["base"]["ref"] == "main"
    assert pr["body"].startswith("Why: clarity") and "cannot approve" in pr["body"]
    assert "already exists" in error_of(again)["message"]
    status = state.structured_content
    assert status["project"] == "default" and status["localState"] is None
    assert status["plan"]["counts"]["create"] > 0
    prs = status["pullRequests"]
    assert prs["checked"] is True
    assert [(p["number"], p["head"]) for p in prs["open"]] == [(1, "agent/description")]
    for result in (proposed, again, state):
        assert TOKEN not in str(result.model_dump())
    assert not [r for r in fake.requests if r.method not in ("GET", "POST")]
    assert not fake.sent("POST", r"/(statuses|comments|reviews|merge)")  # never approves
    # every request propose and status made is one GitHub documents, as it documents it
    spec = load_spec()
    for r in fake.requests:
        query = {k: v[-1] for k, v in parse_qs(r.query).items()}
        spec.check_request(r.method, r.path, query, json.loads(r.body) if r.body else None)
    assert {spec.operation(r.method, r.path).template for r in fake.requests} >= {
        "/repos/{owner}/{repo}/pulls"
    }


def test_propose_without_a_token_refuses_and_commits_nothing(repo: Path) -> None:
    manifest = repo / "todoapp.manifest.yaml"
    manifest.write_text(manifest.read_text().replace("A small", "A tiny"))

    async def script(s: ClientSession) -> object:
        return await s.call_tool("propose", {"branch": "agent/x", "title": "x"})

    error = error_of(drive(repo, script))
    assert error["message"].startswith("no GitHub token")
    assert git(repo, "branch", "--list").split() == ["*", "main"]


def test_status_without_github_reports_the_applied_state(repo: Path) -> None:
    async def script(s: ClientSession) -> object:
        return await s.call_tool("status", {"project": "."})

    status = drive(repo, script).structured_content
    assert status["pullRequests"] == {
        "checked": False,
        "reason": "no GitHub token or repository configured",
        "open": [],
    }
    assert status["stateBranch"] is None and status["config"] == "averos.config.json"


def test_status_after_an_apply_shows_the_state_and_no_changes(repo: Path) -> None:
    import sys

    subprocess.run(
        [sys.executable, "-m", "averos_ci", "run"], cwd=repo, check=True, capture_output=True
    )
    manifest = repo / "todoapp.manifest.yaml"

    async def script(s: ClientSession) -> object:
        before = await s.call_tool("status", {})
        manifest.write_text(manifest.read_text().replace("A small", "A tiny"))
        after = await s.call_tool("status", {})
        return before, after

    before, after = (r.structured_content for r in drive(repo, script))
    state = before["localState"]
    assert (state["application"], state["serial"], state["adapter"]) == ("ToDoApp", 1, "mock")
    assert state["where"] == ".averos/state.json"
    assert before["plan"]["hasChanges"] is False and before["planError"] is None
    assert after["plan"]["hasChanges"] is True
    assert after["plan"]["counts"]["update"] == 1
    assert after["localState"] == state  # read-only: nothing applied


def test_a_failed_push_keeps_the_commit_and_never_shows_the_token(
    repo: Path, fake: FakeGitHub
) -> None:
    git(repo, "remote", "set-url", "origin", str(repo.parent / f"gone-{TOKEN}.git"))
    manifest = repo / "todoapp.manifest.yaml"
    manifest.write_text(manifest.read_text().replace("A small", "A tiny"))

    async def script(s: ClientSession) -> object:
        return await s.call_tool("propose", {"branch": "agent/tiny", "title": "Tiny"})

    result = drive(repo, script, _env(fake))
    error = error_of(result)
    assert error["type"] == "GitFailed" and error["message"].startswith("git push failed")
    assert "is on the local branch 'agent/tiny'" in error["hint"]
    assert TOKEN not in str(result.model_dump()) and "gone-***.git" in error["message"]
    assert git(repo, "log", "-1", "--format=%s", "agent/tiny").strip() == "Tiny"
    assert not fake.sent("POST", r"/pulls$")
