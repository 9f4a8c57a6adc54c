"""One issue per key (averos_ci/forge/issue_sync.py) through the real client against the fake
GitHub: a race between two runs leaves one open issue, the answers are GitHub's; and the
client against the fake's secondary rate limits, on a fake clock its sleeps advance."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import timedelta
from urllib.parse import parse_qs

import pytest
from werkzeug import Response

from averos_ci.errors import InputError
from averos_ci.forge.api import GitHubAPIError, GitHubClient
from averos_ci.forge.issue_sync import IssueAction, Label, OpenIssues, TrackedIssue
from tests.github.gh_fake import (
    BOT,
    SECONDARY_LIMIT_MESSAGE,
    TOKEN,
    FakeGitHub,
    SecondaryLimits,
)
from tests.openapi_check import load_spec, spec_path

SPEC = spec_path()  # resolved before a test installs its private $HOME
LABEL = Label("averos-drift", "d93f0b", "drift")


class Clock:
    """The fake's time; the client's ``sleep`` moves it on (no real waiting)."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def client(fake: FakeGitHub, clock: Clock) -> Iterator[GitHubClient]:
    with GitHubClient(
        token=TOKEN, repository=fake.repo, api_url=fake.url, max_wait=4000, sleep=clock.sleep
    ) as c:
        yield c


def tracked(client: GitHubClient, key: str = "drift:apps/p01") -> TrackedIssue:
    return TrackedIssue(client, label=LABEL, key=key, author=BOT)


def test_two_runs_that_both_found_no_issue_leave_one_open(
    fake: FakeGitHub, client: GitHubClient
) -> None:
    first, second = tracked(client), tracked(client)
    assert first.found() == [] and second.found() == []  # both looked before either opened

    opened = first.publish(title="drift in p01", body="one")
    raced = second.publish(title="drift in p01", body="two")

    assert opened.action is IssueAction.OPENED
    assert raced.number == opened.number and raced.action is IssueAction.UPDATED
    [kept] = fake.issues_labelled("averos-drift")
    assert kept["number"] == opened.number and kept["body"].endswith("\ntwo")
    [dup] = raced.duplicates
    assert fake.issues[dup]["state"] == "closed"
    assert fake.issues[dup]["state_reason"] == "duplicate"
    assert f"Duplicate of #{opened.number}" in fake.issues[dup]["body"]
    assert len(fake.labels) == 1

    # a later run finds exactly the one issue, and the same findings send nothing
    writes = len(fake.requests)
    again = tracked(client).publish(title="drift in p01", body="two")
    assert again.action is IssueAction.UNCHANGED and again.number == opened.number
    assert [r.method for r in fake.requests[writes:]] == ["GET"]

    # gone: a comment, then closed as completed
    closed = tracked(client).resolve(comment="No drift")
    assert closed.action is IssueAction.CLOSED
    assert fake.issues[opened.number]["state_reason"] == "completed"
    assert fake.issue_comments(opened.number) == ["No drift"]
    assert tracked(client).resolve(comment="No drift").action is IssueAction.NONE

    assert fake.check_exchanges(load_spec(SPEC), r"/issues|/labels") >= 8


def test_issues_of_other_keys_or_other_authors_are_not_taken(
    fake: FakeGitHub, client: GitHubClient
) -> None:
    """Anyone may open an issue that copies the marker: only the bot's own counts."""
    own = tracked(client)
    fake.add_issue(title="copy", body=f"{own.marker}\nfake", labels=("averos-drift",), user="eve")
    other = tracked(client, "drift:apps/p02").publish(title="p02", body="x")
    mine = own.publish(title="p01", body="y")
    assert mine.action is IssueAction.OPENED and mine.number not in (other.number, 1)
    assert fake.issues[1]["state"] == "open" and fake.issues[1]["body"].endswith("fake")
    assert tracked(client, 'drift:a"-->b').marker.endswith('"drift:a\\"--\\u003eb" -->')


def test_the_fake_refuses_over_the_limit_and_the_client_waits_as_told(
    fake: FakeGitHub, client: GitHubClient, clock: Clock
) -> None:
    fake.enforce_secondary_limits(SecondaryLimits(windows=((2, 60.0), (3, 3600.0)), clock=clock))
    client.create_issue(title="a", body="a", labels=[])
    clock.now += 10
    client.create_issue(title="b", body="b", labels=[])
    client.create_issue(title="c", body="c", labels=[])  # the minute is full: wait 50 s
    assert clock.slept == [50.0]
    client.create_issue(title="d", body="d", labels=[])  # the hour is full
    assert clock.slept[1] == pytest.approx(3600 - 60, abs=1)
    assert [i["title"] for i in fake.issues.values()] == ["a", "b", "c", "d"]
    refused = fake.rate_limited()
    assert len(refused) == 2 and all(r.status == 403 for r in refused)
    assert all("secondary rate limit" in r.response for r in refused)
    assert fake.check_exchanges(load_spec(SPEC), r"/issues$") == 6  # refusals included


def test_reset_headers_and_429_are_honoured_and_a_long_wait_fails_at_once(
    fake: FakeGitHub, clock: Clock
) -> None:
    fake.enforce_secondary_limits(
        SecondaryLimits(windows=((1, 30.0),), clock=clock, answer="reset", status=429)
    )
    with GitHubClient(
        token=TOKEN, repository=fake.repo, api_url=fake.url, max_wait=10, sleep=clock.sleep
    ) as c:
        c.create_issue(title="a", body="a", labels=[])
        with pytest.raises(GitHubAPIError, match="exceeds the limit") as info:
            c.create_issue(title="b", body="b", labels=[])
    assert "rate limited (HTTP 429)" in str(info.value)
    assert clock.slept == [] and len(fake.issues) == 1
    assert TOKEN not in str(info.value)


def test_a_secondary_limit_without_headers_backs_off_a_minute(
    fake: FakeGitHub, clock: Clock
) -> None:
    """GitHub: no retry-after and no reset -> wait at least a minute, then longer."""
    fake.faults += [("POST", r"/issues$", _secondary_403)] * 2  # its message says which 403
    with GitHubClient(
        token=TOKEN, repository=fake.repo, api_url=fake.url, max_wait=300, sleep=clock.sleep
    ) as c:
        assert c.create_issue(title="a", body="a", labels=[])["title"] == "a"
    assert clock.slept == [60.0, 120.0]
    fake.fail_next("POST", r"/issues$", 403)  # a plain 403 (permissions) is not retried
    with (
        GitHubClient(token=TOKEN, repository=fake.repo, api_url=fake.url, sleep=clock.sleep) as c,
        pytest.raises(GitHubAPIError, match="HTTP 403"),
    ):
        c.create_issue(title="b", body="b", labels=[])
    assert clock.slept == [60.0, 120.0]


def _secondary_403() -> Response:
    body = json.dumps({"message": SECONDARY_LIMIT_MESSAGE, "documentation_url": "https://x"})
    return Response(body, status=403, content_type="application/json")


def test_a_token_of_another_bot_is_told_once_not_an_issue_every_run(
    fake: FakeGitHub, client: GitHubClient
) -> None:
    """A GitHub App's token opens issues as ``my-app[bot]``: with ``botLogin`` left at the
    Actions bot's, the check never found its own issue again and opened one every run."""
    wrong = TrackedIssue(client, label=LABEL, key="drift:apps/p01", author="my-app[bot]")
    with pytest.raises(InputError, match="botLogin") as refused:
        wrong.publish(title="drift in p01", body="one")
    assert f'"botLogin": "{BOT}"' in (refused.value.hint or "")


def test_a_batch_re_lists_only_what_changed_since_and_still_sees_a_concurrent_run(
    fake: FakeGitHub, client: GitHubClient
) -> None:
    """A job that checks many keys lists the label's open issues once; the re-list after each
    issue it opens asks only for issues updated since (``since=``, open and closed), yet still
    finds the duplicate a concurrent run opened and forgets an issue closed meanwhile."""
    fake.page_size = 10
    for n in range(60):  # earlier runs' issues, updated an hour apart
        tracked(client, f"drift:old/{n:02d}").publish(title=f"old {n}", body="x")
        fake._clock += timedelta(hours=1)
    shared = OpenIssues(LABEL.name)

    lists: list[str] = []  # the queries of this job's listings

    def publish(key: str) -> int:
        start = len(fake.requests)
        issue = TrackedIssue(client, label=LABEL, key=key, author=BOT, listing=shared)
        result = issue.publish(title=key, body="drift")
        sent = fake.requests[start:]
        lists.extend(r.query for r in sent if r.method == "GET" and r.path.endswith("/issues"))
        assert result.number is not None
        return result.number

    opened = [publish(f"drift:new/{n}") for n in range(3)]
    # meanwhile another run opens new/3 and an old issue is closed by hand
    racing = tracked(client, "drift:new/3").publish(title="new/3", body="theirs").number
    tracked(client, "drift:old/59").resolve(comment="fixed by hand")
    opened.append(publish("drift:new/3"))

    assert opened[3] == racing  # the older issue is kept, this job's own closed as duplicate
    assert fake.issues[racing]["state"] == "open" and fake.issues[racing]["body"].endswith(
        "\ndrift"
    )
    assert len(fake.issues_labelled("averos-drift")) == 59 + 1 + 3
    assert all(i["title"] != "old 59" for i in shared.issues(client))  # closed meanwhile
    # every page once (60 issues, pages of 10), then one page per re-list: 6 + 4; listing
    # every page again after each opening took 6 + 7 + 7 + 7 + 7
    assert len(lists) == 10, lists
    assert [parse_qs(q).get("state") for q in lists[6:]] == [["all"]] * 4
    assert fake.check_exchanges(load_spec(SPEC), r"/issues") >= 10
