"""The aggregate status: its rule (pure), the merge_group payload, the fake's status
endpoints (the shapes GitHub documents), and the plan/outdated comment commands."""

from __future__ import annotations

import pytest

from averos_ci.forge.api import GitHubAPIError, GitHubClient
from averos_ci.forge.events import MergeGroupEvent, load_event
from averos_ci.review.outdated import is_outdated, is_plan_command, outdated_note
from averos_ci.review.project_status import decide, project_context
from tests.github.gh_fake import TOKEN, FakeGitHub
from tests.github.gh_world import EVENTS

OK = ("success", "no changes")
WAIT = ("pending", "plan abc awaits approval")
FAIL = ("failure", "invalid manifest: m.yaml:3:1: CON-02")


def test_success_only_when_every_touched_project_succeeded() -> None:
    assert decide({"a": OK, "b": OK}, ["a", "b"]).state == "success"
    # a touched project without a status yet is pending, not forgotten
    gate = decide({"a": OK}, ["a", "b"])
    assert (gate.state, gate.description) == ("pending", "waiting for approval or a plan: b")
    assert decide({"a": OK, "b": WAIT}, ["a"]).state == "pending"  # a status counts too
    gate = decide({"a": WAIT, "b": FAIL, "c": FAIL}, ["a", "b", "c"])
    assert (gate.state, gate.description) == ("failure", "plan failed or refused: b, c")
    assert decide({"a": ("error", "x"), "b": OK}, []).state == "failure"


def test_no_project_and_a_single_project() -> None:
    assert decide({}, []) == decide({}, ())
    assert decide({}, []).state == "success"
    # one project: its own words, so a single-project repository reads as before
    assert decide({"default": FAIL}, []).description == FAIL[1]
    assert decide({"apps/p1": WAIT}, ["apps/p1"]).description == f"apps/p1: {WAIT[1]}"
    assert decide({}, ["apps/p1"]).state == "pending"


def test_an_unknown_change_set_fails_closed() -> None:
    gate = decide({"a": OK}, ["a"], error="cannot tell which projects changed: no merge base")
    assert gate.state == "failure" and "no merge base" in gate.description


def test_project_context() -> None:
    assert project_context("averos-ci/plan", "apps/portal") == "averos-ci/plan/apps/portal"


def test_real_merge_group_payload_parses() -> None:
    event = load_event("merge_group", EVENTS / "merge_group.checks_requested.json")
    assert isinstance(event, MergeGroupEvent)
    assert event.action == "checks_requested"
    assert event.merge_group.head_sha == "2ffea6db159f6b6c47a24e778fb9ef40cf6b1c7d"
    assert event.merge_group.head_ref.startswith("refs/heads/gh-readonly-queue/main/pr-104-")
    assert event.merge_group.base_ref == "refs/heads/main" and event.merge_group.base_sha is None


def test_plan_command_and_outdated_mark() -> None:
    assert is_plan_command("/averos plan") and is_plan_command("thanks\n  /averos   plan  ")
    assert not is_plan_command("/averos plan now") and not is_plan_command("/averos approve")
    assert not is_plan_command(None)
    note = outdated_note("apps/p1", "ab" * 32, 7)
    assert is_outdated(note) and "#7" in note and "`/averos plan`" in note


@pytest.fixture
def client(fake: FakeGitHub) -> GitHubClient:
    return GitHubClient(token=TOKEN, repository=fake.repo, api_url=fake.url, max_retries=0)


def test_fake_status_endpoints_answer_the_documented_shapes(
    fake: FakeGitHub, client: GitHubClient
) -> None:
    sha = "a" * 40
    repo = f"/repos/{fake.repo}"
    for context, state in (("ci/a", "pending"), ("ci/b", "success"), ("ci/a", "success")):
        created = client.request(
            "POST", f"{repo}/statuses/{sha}", json={"state": state, "context": context}
        ).json()
    # OpenAPI "status": required fields
    assert {
        "url",
        "avatar_url",
        "id",
        "node_id",
        "state",
        "description",
        "target_url",
        "context",
        "created_at",
        "updated_at",
        "creator",
    } <= set(created)
    combined = client.request("GET", f"{repo}/commits/{sha}/status").json()
    # OpenAPI "combined-commit-status": required fields; the latest status per context
    assert {"state", "sha", "total_count", "statuses", "repository", "commit_url", "url"} <= set(
        combined
    )
    assert combined["state"] == "success" and combined["total_count"] == 2
    simple = {"description", "id", "node_id", "state", "context", "target_url", "avatar_url"}
    assert all(simple | {"url", "created_at", "updated_at"} <= set(s) for s in combined["statuses"])
    # pages of fake.page_size (2): page 2 is empty
    page2 = client.request("GET", f"{repo}/commits/{sha}/status", params={"page": 2}).json()
    assert page2["statuses"] == [] and page2["total_count"] == 2
    listed = client.request("GET", f"{repo}/commits/{sha}/statuses").json()
    assert [s["context"] for s in listed] == ["ci/a", "ci/b"]  # newest first, one page of 2
    with pytest.raises(GitHubAPIError) as err:
        client.request("POST", f"{repo}/statuses/{sha}", json={"state": "green"})
    assert err.value.status == 422
