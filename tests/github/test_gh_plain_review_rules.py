"""When a plain approving review approves a plan: the pure rule, edge by edge."""

from __future__ import annotations

from typing import Any

import pytest

from averos_ci.review.approvals import is_plain_review, plain_review_refusal
from averos_ci.review.comment import PlanMeta

HEAD = "a" * 40
PLAN = "b" * 64
META = PlanMeta("default", PLAN, HEAD, True, plan_at="2026-01-01T00:00:10Z", base_state="c" * 64)


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
    assert plain_review_refusal(review(), meta=META, plan_hash=PLAN, head_sha=HEAD) is None


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
    refusal = plain_review_refusal(review(**over), meta=META, plan_hash=plan, head_sha=HEAD)
    assert refusal is not None and why in refusal.reason
    assert refusal.hint and f"/averos approve {plan[:12]}" in refusal.hint


def test_a_pinned_or_withdrawn_review_is_not_plain() -> None:
    assert not is_plain_review(review(body=f"/averos approve {PLAN[:12]}"))
    assert not is_plain_review(review(body="/averos approve"))
    assert not is_plain_review(review(state="CHANGES_REQUESTED"))


def test_a_plan_comment_without_a_plan_time_counts_no_plain_review() -> None:
    old = PlanMeta("default", PLAN, HEAD, True)  # written before planAt existed
    assert plain_review_refusal(review(), meta=old, plan_hash=PLAN, head_sha=HEAD) is not None
    assert PlanMeta.decode(META.encode()) == META  # baseState and planAt round-trip
