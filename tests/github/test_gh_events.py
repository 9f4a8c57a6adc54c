"""The shared, real event payloads parse; broken ones are located errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from averos_ci.forge.events import (
    EventError,
    IssueCommentEvent,
    PullRequestEvent,
    PullRequestReviewEvent,
    PushEvent,
    load_event,
)
from tests.github.gh_world import EVENTS


@pytest.mark.parametrize(
    "name, file, kind",
    [
        ("pull_request", "pull_request.opened.json", PullRequestEvent),
        ("pull_request", "pull_request.synchronize.json", PullRequestEvent),
        ("pull_request", "pull_request.closed.json", PullRequestEvent),
        ("issue_comment", "issue_comment.created.json", IssueCommentEvent),
        ("pull_request_review", "pull_request_review.submitted.json", PullRequestReviewEvent),
        ("push", "push.json", PushEvent),
    ],
)
def test_real_payloads_parse(name: str, file: str, kind: type) -> None:
    event = load_event(name, EVENTS / file)
    assert isinstance(event, kind)


def test_fields_the_flow_reads() -> None:
    pr = load_event("pull_request", EVENTS / "pull_request.opened.json")
    assert isinstance(pr, PullRequestEvent)
    assert pr.pull_request.head.sha == "ec26c3e57ca3a959ca5aad62de7213c562f8c821"
    assert not pr.pull_request.is_fork("Codertocat/Hello-World")
    assert pr.pull_request.is_fork("someone/else")
    comment = load_event("issue_comment", EVENTS / "issue_comment.created.json")
    assert isinstance(comment, IssueCommentEvent)
    assert comment.issue.pull_request is not None and comment.issue.number == 1
    review = load_event("pull_request_review", EVENTS / "pull_request_review.submitted.json")
    assert isinstance(review, PullRequestReviewEvent)
    assert review.review.state == "commented"
    assert review.review.commit_id == review.pull_request.head.sha


def test_wrong_shape_names_file_and_pointer(tmp_path: Path) -> None:
    data = json.loads((EVENTS / "pull_request.opened.json").read_text())
    data["pull_request"]["head"]["sha"] = 42
    bad = tmp_path / "event.json"
    bad.write_text(json.dumps(data))
    with pytest.raises(EventError) as info:
        load_event("pull_request", bad)
    assert str(bad) in str(info.value)
    assert "/pull_request/head/sha" in str(info.value)
    assert info.value.exit_code == 2


@pytest.mark.parametrize(
    "content, needle",
    [
        (b"{not json", "not JSON"),
        (b"\xff\xfe", "not UTF-8"),
        (b"[]", "/"),
    ],
)
def test_garbage_is_a_located_error(tmp_path: Path, content: bytes, needle: str) -> None:
    bad = tmp_path / "event.json"
    bad.write_bytes(content)
    with pytest.raises(EventError, match=needle):
        load_event("push", bad)


def test_unsupported_event_and_missing_file(tmp_path: Path) -> None:
    with pytest.raises(EventError, match="unsupported event 'release'"):
        load_event("release", tmp_path / "x.json")
    with pytest.raises(EventError, match="cannot read"):
        load_event("push", tmp_path / "missing.json")
