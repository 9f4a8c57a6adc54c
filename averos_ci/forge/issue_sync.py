"""One issue per key, kept by a bot: found by its label and a hidden marker in the body,
opened when the condition appears, updated in place while it lasts, closed with a comment when
it is gone — never two open at once.

Concurrent runs (two scheduled checks overlapping, a manual run beside a scheduled one) may
each find no issue and each open one. Each run that opens an issue lists the open ones again
afterwards: the oldest (lowest number) is *the* issue, every newer one is closed as its
duplicate. Every run makes the same choice, and closing a duplicate is the same PATCH whoever
sends it, so the runs agree without a lock and a later run repairs what a crashed one left.

Content-creating requests per key and run are bounded: at most one label, one issue or one
update, one comment and the close — plus one close per duplicate found (concurrent runs).

Reading is bounded too, for thousands of keys under one label (GitHub allows an Actions token
1,000 requests an hour): a key whose caller knows its issue's number (``recorded``) fetches
that one issue and takes it while it is still open, labelled, marked and the author's; any
other key looks in :class:`OpenIssues`, the label's open issues listed at most once and shared
by every key one process checks — plus the re-list after each issue it opens, which the race
above needs. Resolving needs no listing when the caller knows no issue is open
(``resolve(look=False)``) or its recorded issue is closed already (by hand): nothing is sent
beyond that one fetch unless the listing is at hand, where a forgotten issue is found and
closed for free.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any, Protocol

from averos_ci.errors import InputError
from averos_ci.forge.api import clip_body

SKEW = timedelta(minutes=10)  # a re-list asks from this long before the newest update seen


class IssueForge(Protocol):
    """What this module asks of a forge (:class:`averos_ci.forge.protocol.Forge` has it)."""

    def open_issues(self, label: str) -> Iterator[dict[str, Any]]: ...

    def issues_since(self, label: str, since: str) -> Iterator[dict[str, Any]]: ...

    def get_issue(self, number: int) -> dict[str, Any] | None: ...

    def create_issue(self, *, title: str, body: str, labels: list[str]) -> dict[str, Any]: ...

    def update_issue(self, number: int, **fields: Any) -> dict[str, Any]: ...

    def create_comment(self, number: int, body: str) -> dict[str, Any]: ...

    def ensure_label(self, name: str, *, color: str, description: str) -> None: ...


class IssueAction(StrEnum):
    OPENED = "opened"
    UPDATED = "updated"
    UNCHANGED = "unchanged"
    CLOSED = "closed"
    NONE = "none"  # nothing to report and no issue open


@dataclass(frozen=True)
class Label:
    name: str
    color: str  # six hex digits, no '#'
    description: str


@dataclass(frozen=True)
class IssueSync:
    action: IssueAction
    number: int | None = None  # the issue kept, opened or closed
    duplicates: tuple[int, ...] = ()  # closed as duplicates of ``number``


def marker(key: str) -> str:
    """The hidden first line that names an issue's key (JSON-quoted: no ``-->`` inside)."""
    quoted = json.dumps(key).replace(">", "\\u003e")
    return f"<!-- averos-ci:issue {quoted} -->"


class OpenIssues:
    """The open issues under ``label``, listed on first use and shared by the keys checked
    after it (one process: a batch job's projects). This process's own changes keep it
    current; what other runs do meanwhile is caught where it matters — the re-list after
    opening an issue (the race) and the next run.

    A re-list asks only for what changed since the last listing (``since=``, open and closed:
    a duplicate a concurrent run opened, an issue closed meanwhile), from the newest update
    that listing saw — GitHub's own clock, less :data:`SKEW` — so a batch job that opens many
    issues does not read every page after each. An issue only relabelled meanwhile is seen by
    the next run."""

    def __init__(self, label: str) -> None:
        self.label = label
        self._open: dict[int, dict[str, Any]] | None = None
        self._mark: datetime | None = None  # the newest ``updated_at`` the listings saw

    @property
    def listed(self) -> bool:
        return self._open is not None

    def issues(self, forge: IssueForge) -> list[dict[str, Any]]:
        """Oldest first; listed now unless already listed."""
        if self._open is None:
            return self.relist(forge)
        return sorted(self._open.values(), key=lambda i: int(i["number"]))

    def relist(self, forge: IssueForge) -> list[dict[str, Any]]:
        """List again: every page, or what changed since the newest update seen before."""
        if self._open is None or self._mark is None:
            seen = list(forge.open_issues(self.label))
            self._open = {int(i["number"]): i for i in seen}
        else:
            since = (self._mark - SKEW).strftime("%Y-%m-%dT%H:%M:%SZ")
            seen = list(forge.issues_since(self.label, since))
            for issue in seen:
                if issue.get("state") == "open":
                    self._open[int(issue["number"])] = issue
                else:
                    self._open.pop(int(issue["number"]), None)
        for issue in seen:
            at = _when(issue.get("updated_at"))
            if at is not None and (self._mark is None or at > self._mark):
                self._mark = at
        return self.issues(forge)

    def kept(self, issue: dict[str, Any]) -> None:
        if self._open is not None:
            self._open[int(issue["number"])] = issue

    def closed(self, number: int) -> None:
        if self._open is not None:
            self._open.pop(number, None)


def _when(text: object) -> datetime | None:
    """An ISO 8601 time of GitHub's (``2026-12-07T10:00:00Z``); ``None`` when it is not one."""
    try:
        return datetime.fromisoformat(str(text).replace("Z", "+00:00"))
    except ValueError:
        return None


class TrackedIssue:
    """The issue of ``key`` under ``label``, looked up once, on first use. ``author``: only
    issues opened by that login count (another user's copy of the marker is ignored).
    ``recorded``: the number its caller last kept for it (fetched alone, and taken while it
    is still this key's open issue); ``listing``: the label's open issues shared with other
    keys (by default this key's own)."""

    def __init__(
        self,
        forge: IssueForge,
        *,
        label: Label,
        key: str,
        author: str | None = None,
        recorded: int | None = None,
        listing: OpenIssues | None = None,
    ) -> None:
        self.forge, self.label, self.key, self.author = forge, label, key, author
        self.recorded = recorded
        self.listing = listing or OpenIssues(label.name)
        self._found: list[dict[str, Any]] | None = None
        self._recorded_issue: list[dict[str, Any] | None] | None = None  # [fetched]

    @property
    def marker(self) -> str:
        return marker(self.key)

    def found(self) -> list[dict[str, Any]]:
        """The open issues of this key, oldest first (more than one: a race left duplicates)."""
        if self._found is None:
            own = self._own()
            self._found = [own] if own is not None else self._mine(self.listing.issues(self.forge))
        return self._found

    def current(self) -> dict[str, Any] | None:
        found = self.found()
        return found[0] if found else None

    def publish(self, *, title: str, body: str) -> IssueSync:
        """Open the issue, or bring the open one to ``title`` and ``body``."""
        text = f"{self.marker}\n{body}"
        found = self.found()
        if not found:
            self.forge.ensure_label(
                self.label.name, color=self.label.color, description=self.label.description
            )
            mine = self.forge.create_issue(title=title, body=text, labels=[self.label.name])
            opener = (mine.get("user") or {}).get("login")
            if self.author is not None and opener is not None and opener != self.author:
                # the token is another bot's (a GitHub App): its issues would never be found
                # again, and every run would open one more
                raise InputError(
                    f"issue #{mine['number']} was opened by {opener!r}, not by {self.author!r} "
                    "whose issues this check keeps",
                    hint=f'set "github": {{"botLogin": "{opener}"}} in the config (the login '
                    "of the token's bot), then close the extra issue",
                )
            # a concurrent run may have opened one too: never answered from the shared listing
            found = self._mine(self.listing.relist(self.forge))
            if not any(i["number"] == mine["number"] for i in found):
                found = sorted([*found, mine], key=lambda i: int(i["number"]))
                self.listing.kept(mine)
            action = IssueAction.OPENED if found[0]["number"] == mine["number"] else None
        else:
            action = None
        kept, duplicates = found[0], found[1:]
        closed = self._close_duplicates(kept, duplicates)
        if action is None:
            if kept.get("body") in (text, clip_body(text)) and kept.get("title") == title:
                action = IssueAction.UNCHANGED
            else:
                kept = self.forge.update_issue(int(kept["number"]), title=title, body=text)
                self.listing.kept(kept)
                action = IssueAction.UPDATED
        self._found = [kept]
        return IssueSync(action, int(kept["number"]), closed)

    def resolve(self, *, comment: str, look: bool = True) -> IssueSync:
        """Close the open issue (and any duplicate) with ``comment``; nothing when none is.
        ``look=False``: the caller knows none is open — no request, unless the label's
        listing is already at hand (it finds an issue a crashed run left unrecorded). The
        recorded issue, when it is no longer open (closed by hand), says the same."""
        if self._found is None and (self.recorded is not None or not look):
            own = self._own()
            if own is not None:
                self._found = [own]
            elif not self.listing.listed:
                return IssueSync(IssueAction.NONE)
        found = self.found()
        if not found:
            return IssueSync(IssueAction.NONE)
        kept = found[0]
        closed = self._close_duplicates(kept, found[1:])
        self.forge.create_comment(int(kept["number"]), comment)
        self.forge.update_issue(int(kept["number"]), state="closed", state_reason="completed")
        self.listing.closed(int(kept["number"]))
        self._found = []
        return IssueSync(IssueAction.CLOSED, int(kept["number"]), closed)

    def _close_duplicates(
        self, kept: dict[str, Any], duplicates: list[dict[str, Any]]
    ) -> tuple[int, ...]:
        """The same PATCH from every run that sees them: no comment to repeat."""
        for dup in duplicates:
            self.forge.update_issue(
                int(dup["number"]),
                body=f"Duplicate of #{kept['number']} (opened by a concurrent run).",
                state="closed",
                state_reason="duplicate",
            )
            self.listing.closed(int(dup["number"]))
        return tuple(int(d["number"]) for d in duplicates)

    def _own(self) -> dict[str, Any] | None:
        """The recorded issue while it is this key's open issue; fetched once."""
        if self.recorded is not None and self._recorded_issue is None:
            self._recorded_issue = [self._fetch(self.recorded)]
        return self._recorded_issue[0] if self._recorded_issue else None

    def _fetch(self, number: int) -> dict[str, Any] | None:
        """Issue ``number`` when it is still this key's open issue (closed, relabelled, its
        marker edited away, a pull request, deleted or moved: ``None``)."""
        issue = self.forge.get_issue(number)
        if issue is None or "pull_request" in issue or issue.get("state") != "open":
            return None
        if self.label.name.lower() not in {n.lower() for n in _label_names(issue)}:
            return None
        return issue if self._mine([issue]) else None

    def _mine(self, issues: list[dict[str, Any]]) -> list[dict[str, Any]]:
        first = self.marker
        mine = [
            i
            for i in issues
            if str(i.get("body") or "").startswith(first + "\n")
            and (self.author is None or (i.get("user") or {}).get("login") == self.author)
        ]
        return sorted(mine, key=lambda i: int(i["number"]))


def _label_names(issue: dict[str, Any]) -> list[str]:
    """An issue's labels are objects, or plain names in older payloads."""
    labels = issue.get("labels") or []
    return [str(x.get("name") if isinstance(x, dict) else x) for x in labels]
