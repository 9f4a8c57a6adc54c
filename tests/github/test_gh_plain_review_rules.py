"""When a plain approving review approves a plan: the pure rule, edge by edge. The plan
shown and when it was published are the bot's records on the head (``HeadFacts``), never
the plan comment's text."""

from __future__ import annotations

from typing import Any

import pytest

from averos_ci.review.approvals import is_plain_review, plain_review_refusal
from averos_ci.review.comment import PlanMeta
from averos_ci.review.records import HeadFacts, Record, facts_of

HEAD = "a" * 40
PLAN = "b" * 64
META = PlanMeta("default", PLAN, HEAD, True, plan_at="2026-01-01T00:00:10Z", base_state="c" * 64)
FACTS = HeadFacts(head_at="2026-01-01T00:00:05Z", shown=PLAN, plan_at="2026-01-01T00:00:10Z")


def review(**over: Any) -> dict[str, Any]:
    return {
        "state": "APPROVED",
        "commit_id": HEAD,
        "body": "",
        "submitted_at": "2026-01-01T00:00:11Z",
        **over,
    }


def test_a_review_after_the_plan_of_its_head_counts() -> None:
    assert is_plain_review(review()) and is_plain_review(review(body="LGTM"))
    assert plain_review_refusal(review(), facts=FACTS, plan_hash=PLAN, head_sha=HEAD) is None


@pytest.mark.parametrize(
    ("over", "plan", "why"),
    [
        ({"submitted_at": "2026-01-01T00:00:10Z"}, PLAN, "submitted before"),  # same second
        ({"submitted_at": "2026-01-01T00:00:09Z"}, PLAN, "submitted before"),
        ({"submitted_at": None}, PLAN, "submitted before"),
        ({"commit_id": "d" * 40}, PLAN, "is for commit"),
        ({}, "e" * 64, "the plan changed since the review"),  # recomputed on a moved state
    ],
)
def test_otherwise_it_is_outdated(over: dict[str, Any], plan: str, why: str) -> None:
    refusal = plain_review_refusal(review(**over), facts=FACTS, plan_hash=plan, head_sha=HEAD)
    assert refusal is not None and why in refusal.reason
    assert refusal.hint and f"/averos approve {plan[:12]}" in refusal.hint


def test_a_pinned_or_withdrawn_review_is_not_plain() -> None:
    assert not is_plain_review(review(body=f"/averos approve {PLAN[:12]}"))
    assert not is_plain_review(review(body="/averos approve"))
    assert not is_plain_review(review(state="CHANGES_REQUESTED"))


def test_a_head_without_a_plan_record_counts_no_plain_review() -> None:
    none = HeadFacts()  # no status the bot created names a plan for this head
    assert plain_review_refusal(review(), facts=none, plan_hash=PLAN, head_sha=HEAD) is not None
    assert PlanMeta.decode(META.encode()) == META  # baseState and planAt round-trip (a cache)


def test_the_records_say_when_the_shown_plan_was_published() -> None:
    """P1 then P2 then P2 again on one head: ``plan_at`` is the start of the last run of P2."""
    p1, p2 = "1" * 64, "2" * 64
    records = [
        Record(1, "2026-01-01T00:00:01Z", p1, "alice"),
        Record(2, "2026-01-01T00:00:02Z", p2, None),
        Record(3, "2026-01-01T00:00:03Z", p2, None),
    ]
    facts = facts_of(records)
    assert facts == HeadFacts("2026-01-01T00:00:01Z", p2, "2026-01-01T00:00:02Z", "alice")
