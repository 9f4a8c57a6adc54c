"""How one key's issue is found (averos_ci/forge/issue_sync.py), through the real client
against the fake GitHub: the recorded number is fetched alone and taken only while it is
still the key's open issue; otherwise — and for keys with no recorded issue — the label's
open issues, listed once and shared by every key of the process."""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import parse_qs

import pytest

from averos_ci.forge.api import GitHubClient
from averos_ci.forge.issue_sync import IssueAction, Label, OpenIssues, TrackedIssue, marker
from tests.github.gh_fake import BOT, TOKEN, FakeGitHub
from tests.openapi_check import load_spec, spec_path

SPEC = spec_path()  # resolved before a test installs its private $HOME
LABEL = Label("averos-drift", "d93f0b", "drift")


@pytest.fixture
def client(fake: FakeGitHub) -> Iterator[GitHubClient]:
    with GitHubClient(token=TOKEN, repository=fake.repo, api_url=fake.url) as c:
        yield c


def tracked(
    client: GitHubClient, key: str, *, recorded: int | None = None,
    listing: OpenIssues | None = None,
) -> TrackedIssue:  # fmt: skip
    return TrackedIssue(
        client, label=LABEL, key=key, author=BOT, recorded=recorded, listing=listing
    )


def opened(fake: FakeGitHub, key: str, *, user: str = BOT, label: bool = True) -> int:
    """An issue as the check opens it (or as someone copies it: ``user``)."""
    return int(
        fake.add_issue(
            title=key,
            body=f"{marker(key)}\nfound",
            labels=("averos-drift",) if label else (),
            user=user,
        )["number"]
    )


def reads(fake: FakeGitHub, start: int) -> tuple[int, list[str]]:
    """Listings sent since ``start`` (first pages), and the single issues fetched."""
    sent = [r for r in fake.requests[start:] if r.method == "GET"]
    lists = sum(1 for r in sent if r.path.endswith("/issues") and "page" not in parse_qs(r.query))
    return lists, [r.path.rsplit("/", 1)[1] for r in sent if r.path[-1].isdigit()]


def test_the_recorded_issue_is_fetched_alone_while_it_is_the_keys_open_issue(
    fake: FakeGitHub, client: GitHubClient
) -> None:
    mine = opened(fake, "drift:a")
    for other in ("drift:b", "drift:c", "drift:d", "drift:e"):
        opened(fake, other)  # three pages of two: what a listing would cost
    start = len(fake.requests)
    issue = tracked(client, "drift:a", recorded=mine)
    assert issue.publish(title="drift:a", body="found").action is IssueAction.UNCHANGED
    assert reads(fake, start) == (0, [str(mine)])

    # fixed: the recorded issue is closed, still without a listing
    start = len(fake.requests)
    closed = tracked(client, "drift:a", recorded=mine).resolve(comment="gone", look=False)
    assert closed.action is IssueAction.CLOSED and closed.number == mine
    assert reads(fake, start) == (0, [str(mine)])
    assert fake.issues[mine]["state"] == "closed"
    assert fake.check_exchanges(load_spec(SPEC), r"/issues/\d+$") >= 3


@pytest.mark.parametrize(
    "change",
    ["closed by hand", "label taken off", "marker edited away", "another user's", "deleted"],
)
def test_a_recorded_issue_that_is_no_longer_the_keys_falls_back_to_the_listing(
    fake: FakeGitHub, client: GitHubClient, change: str
) -> None:
    older = opened(fake, "drift:a")  # the key's real open issue, unrecorded (a crashed run)
    recorded = opened(fake, "drift:a", user="eve" if change == "another user's" else BOT)
    issue = fake.issues[recorded]
    if change == "closed by hand":
        issue.update(state="closed", state_reason="completed")
    elif change == "label taken off":
        issue["labels"] = []
    elif change == "marker edited away":
        issue["body"] = "found, said someone"
    elif change == "deleted":
        del fake.issues[recorded]
    start = len(fake.requests)
    synced = tracked(client, "drift:a", recorded=recorded).publish(title="drift:a", body="found")
    assert (synced.action, synced.number) == (IssueAction.UNCHANGED, older)
    assert reads(fake, start) == (1, [str(recorded)])


def test_keys_share_one_listing_kept_current_by_what_they_open_and_close(
    fake: FakeGitHub, client: GitHubClient
) -> None:
    kept = opened(fake, "drift:kept")
    orphan = opened(fake, "drift:orphan")  # opened, never recorded: its key checks clean
    listing = OpenIssues(LABEL.name)

    # a clean key with nothing recorded sends nothing while no listing is at hand
    start = len(fake.requests)
    quiet = tracked(client, "drift:orphan", listing=listing).resolve(comment="gone", look=False)
    assert quiet.action is IssueAction.NONE and fake.requests[start:] == []

    # a key with findings and no recorded issue lists once; the next keys use that listing
    start = len(fake.requests)
    unchanged = tracked(client, "drift:kept", listing=listing).publish(
        title="drift:kept", body="found"
    )
    assert (unchanged.action, unchanged.number) == (IssueAction.UNCHANGED, kept)
    new = tracked(client, "drift:new", listing=listing).publish(title="drift:new", body="found")
    assert new.action is IssueAction.OPENED
    assert reads(fake, start)[0] == 2  # the listing, and the re-list after opening (the race)

    # the orphan is closed for free now that a listing is at hand; a later key sees the
    # process's own changes without listing again
    start = len(fake.requests)
    swept = tracked(client, "drift:orphan", listing=listing).resolve(comment="gone", look=False)
    assert (swept.action, swept.number) == (IssueAction.CLOSED, orphan)
    again = tracked(client, "drift:new", listing=listing).publish(title="drift:new", body="found")
    assert (again.action, again.number) == (IssueAction.UNCHANGED, new.number)
    assert tracked(client, "drift:orphan", listing=listing).found() == []
    assert reads(fake, start)[0] == 0


def test_a_clean_key_whose_recorded_issue_was_closed_by_hand_sends_one_get(
    fake: FakeGitHub, client: GitHubClient
) -> None:
    number = opened(fake, "drift:a")
    fake.issues[number].update(state="closed", state_reason="completed")
    start = len(fake.requests)
    synced = tracked(client, "drift:a", recorded=number).resolve(comment="gone")
    assert synced.action is IssueAction.NONE
    assert reads(fake, start) == (0, [str(number)]) and fake.issue_comments(number) == []
