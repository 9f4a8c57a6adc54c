"""The bot's own records of a head: the facts an approval depends on, from append-only data.

GitHub lets anyone with write access edit any comment, the bot's sticky one included (its
author stays the bot), so nothing an approval depends on is read from a comment's text. Each
time the plan job publishes a plan it sets the project's commit status on the head with a
*record* in the status's ``target_url`` fragment: ``#averos-ci=plan:<planHash>,pr:<n>`` and,
for an ``opened``/``synchronize`` event, ``,pusher:<sender>`` (who pushed the head). Statuses
cannot be edited or deleted, and only those whose ``creator`` is the bot are records (a write
user can create statuses too). From them, per (head, pull request, project):

- ``head_at``: when the first plan for the head was published — a comment approves the head
  only if written strictly after it;
- ``shown``: the plan the latest record names — the plan on view;
- ``plan_at``: when the current run of records naming ``shown`` began — a plain approving
  review counts only if submitted strictly after it;
- ``pusher``: who pushed the head (``None``: not recorded; the last-pusher rule fails closed);
- ``pending``: the plan shown is the semantic plan of a regenerating adapter whose code change
  is still being computed (``,pending``): nothing approves it yet;
- ``semantic``: for a completed plan, the semantic planHash its code change completes
  (``,of:<hash>``): the apply, which plans semantically first, finds the approved full plan
  through it and then applies exactly that one
  (:func:`averos_ci.review.approvals.require_approval`).

Times are GitHub's, with 1-second resolution, and "after" is strict: an approval in the same
second as the plan's record is refused ("approve again"), never counted by a tie.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import quote, unquote

from averos_ci.forge.protocol import Forge

_RECORD_RE = re.compile(
    r"#averos-ci=plan:([0-9a-f]{1,64}),pr:(\d+)(?:,pusher:([^,#\s]+))?"
    r"(?:,of:([0-9a-f]{64}))?(,pending)?\Z"
)


def record_url(
    run_url: str | None,
    *,
    plan_hash: str,
    pr_number: int,
    pusher: str | None,
    semantic: str | None = None,
    pending: bool = False,
) -> str:
    """The status ``target_url``: the run's page with the record as its fragment."""
    frag = f"#averos-ci=plan:{plan_hash},pr:{pr_number}"
    if pusher:
        frag += f",pusher:{quote(pusher, safe='')}"
    if semantic:
        frag += f",of:{semantic}"
    if pending:
        frag += ",pending"
    return f"{run_url or 'https://github.com'}{frag}"


@dataclass(frozen=True)
class Record:
    id: int
    created_at: str
    plan_hash: str
    pusher: str | None
    semantic: str | None = None
    pending: bool = False


@dataclass(frozen=True)
class HeadFacts:
    head_at: str | None = None
    shown: str | None = None
    plan_at: str | None = None
    pusher: str | None = None
    semantic: str | None = None  # the semantic planHash the shown plan completes
    pending: bool = False  # the shown plan's code change is still being computed


def head_records(
    client: Forge, sha: str, *, context: str, pr_number: int, bot_login: str
) -> list[Record]:
    """The bot's records on ``sha`` for ``context`` and ``pr_number``, oldest first (by id:
    exact, where the times tie)."""
    found: list[Record] = []
    for s in client.commit_statuses(sha):
        if (s.get("creator") or {}).get("login") != bot_login or s.get("context") != context:
            continue
        match = _RECORD_RE.search(str(s.get("target_url") or ""))
        if not match or int(match[2]) != pr_number or not isinstance(s.get("id"), int):
            continue
        pusher = unquote(match[3]) if match[3] else None
        found.append(
            Record(
                int(s["id"]),
                str(s.get("created_at")),
                match[1],
                pusher,
                semantic=match[4] or None,
                pending=bool(match[5]),
            )
        )
    return sorted(found, key=lambda r: r.id)


def facts_of(records: list[Record]) -> HeadFacts:
    if not records:
        return HeadFacts()
    shown = records[-1].plan_hash
    start = len(records) - 1
    while start > 0 and records[start - 1].plan_hash == shown:
        start -= 1
    pusher = next((r.pusher for r in records if r.pusher), None)
    last = records[-1]
    return HeadFacts(
        records[0].created_at,
        shown,
        records[start].created_at,
        pusher,
        semantic=last.semantic,
        pending=last.pending,
    )


def head_facts(
    client: Forge, sha: str, *, context: str, pr_number: int, bot_login: str
) -> HeadFacts:
    return facts_of(
        head_records(client, sha, context=context, pr_number=pr_number, bot_login=bot_login)
    )
