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
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Protocol

from averos_ci.errors import InputError
from averos_ci.forge.api import clip_body


class IssueForge(Protocol):
    """What this module asks of a forge (:class:`averos_ci.forge.protocol.Forge` has it)."""

    def open_issues(self, label: str) -> Iterator[dict[str, Any]]: ...

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


class TrackedIssue:
    """The issue of ``key`` under ``label`` (listed once, on first use). ``author``: only
    issues opened by that login count (another user's copy of the marker is ignored)."""

    def __init__(
        self, forge: IssueForge, *, label: Label, key: str, author: str | None = None
    ) -> None:
        self.forge, self.label, self.key, self.author = forge, label, key, author
        self._found: list[dict[str, Any]] | None = None

    @property
    def marker(self) -> str:
        return marker(self.key)

    def found(self) -> list[dict[str, Any]]:
        """The open issues of this key, oldest first (more than one: a race left duplicates)."""
        if self._found is None:
            self._found = self._list()
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
            found = self._list()  # a concurrent run may have opened one too
            if not any(i["number"] == mine["number"] for i in found):
                found = sorted([*found, mine], key=lambda i: int(i["number"]))
            action = IssueAction.OPENED if found[0]["number"] == mine["number"] else None
        else:
            action = None
        kept, duplicates = found[0], found[1:]
        closed = self._close_duplicates(kept, duplicates)
        if action is None:
            if kept.get("body") in (text, clip_body(text)) and kept.get("title") == title:
                action = IssueAction.UNCHANGED
            else:
                self.forge.update_issue(int(kept["number"]), title=title, body=text)
                action = IssueAction.UPDATED
        self._found = [kept]
        return IssueSync(action, int(kept["number"]), closed)

    def resolve(self, *, comment: str) -> IssueSync:
        """Close the open issue (and any duplicate) with ``comment``; nothing when none is."""
        found = self.found()
        if not found:
            return IssueSync(IssueAction.NONE)
        kept = found[0]
        closed = self._close_duplicates(kept, found[1:])
        self.forge.create_comment(int(kept["number"]), comment)
        self.forge.update_issue(int(kept["number"]), state="closed", state_reason="completed")
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
        return tuple(int(d["number"]) for d in duplicates)

    def _list(self) -> list[dict[str, Any]]:
        first = self.marker
        mine = [
            i
            for i in self.forge.open_issues(self.label.name)
            if str(i.get("body") or "").startswith(first + "\n")
            and (self.author is None or (i.get("user") or {}).get("login") == self.author)
        ]
        return sorted(mine, key=lambda i: int(i["number"]))
