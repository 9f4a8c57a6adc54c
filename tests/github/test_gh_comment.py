"""The sticky comment: marker + author check, hidden metadata, size, escaping, the command."""

from __future__ import annotations

import re
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import find, given, settings
from hypothesis import strategies as st

from averos_ci._markdown import escape
from averos_ci.plan import ExecutionPlan, compute_plan
from averos_ci.review.comment import (
    ApprovalRef,
    PlanMeta,
    find_sticky,
    marker,
    parse_command,
    restamp,
    status_text,
)
from averos_ci.review.sections import CommentParts, fallback_markdown, render_comment
from tests.github.gh_world import manifest_variant

BOT = "github-actions[bot]"


def _plan(extra: int = 0) -> ExecutionPlan:
    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / "m.yaml"
        p.write_text(manifest_variant(extra), encoding="utf-8")
        return compute_plan(manifest_path=p, state=None).plan


def test_meta_round_trip_and_restamp() -> None:
    plan = _plan()
    meta = PlanMeta("default", plan.plan_hash, "a" * 40, True)
    body = render_comment(CommentParts(meta=meta, plan=plan), max_chars=60_000)
    assert body.startswith(marker("default"))
    assert PlanMeta.decode(body) == meta
    ref = ApprovalRef("comment", 7, "bob", plan.plan_hash, "a" * 40)
    meta2 = meta.with_approval(ref)
    body2 = restamp(body, meta2, status_text(meta2, ["bob"]))
    assert PlanMeta.decode(body2) == meta2 and "Approved" in body2
    assert body2.split("<details>")[1] == body.split("<details>")[1]  # plan kept as posted
    assert meta2.current_approvals() == (ref,)
    stale = PlanMeta("default", "other", "a" * 40, True, approvals=(ref,))
    assert stale.current_approvals() == ()


def test_only_the_bots_comment_with_this_projects_marker_is_trusted() -> None:
    plan = _plan()
    meta = PlanMeta("default", plan.plan_hash, "a" * 40, True)
    body = render_comment(CommentParts(meta=meta, plan=plan), max_chars=60_000)
    forged = {"id": 1, "body": body, "user": {"login": "mallory"}}
    quoted = {"id": 2, "body": "> " + body, "user": {"login": BOT}}
    other = {
        "id": 3,
        "body": body.replace("project=default", "project=other"),
        "user": {"login": BOT},
    }
    real = {"id": 4, "body": body, "user": {"login": BOT}}
    found = find_sticky([forged, quoted, other, real], project="default", bot_login=BOT)
    assert found is not None and found.id == 4 and found.meta == meta
    assert find_sticky([forged, quoted], project="default", bot_login=BOT) is None


def test_a_huge_plan_stays_under_the_comment_limit() -> None:
    plan = _plan(3000)
    meta = PlanMeta("default", plan.plan_hash, "a" * 40, True)
    body = render_comment(CommentParts(meta=meta, plan=plan), max_chars=60_000)
    assert len(body) <= 60_000
    assert PlanMeta.decode(body) == meta and "To approve" in body
    assert len(fallback_markdown(plan, max_chars=5_000)) <= 5_000


def test_manifest_strings_are_escaped() -> None:
    hostile = "<img src=x onerror=alert(1)> [link](http://evil) @team\n# heading | cell"
    text = escape(hostile)
    assert "<img" not in text and "\n" not in text
    assert re.search(r"(?<!\\)[\[\]]", text) is None  # every bracket escaped: no link
    assert "@\u200bteam" in text and "\\|" in text
    meta = PlanMeta("pro<b>ject", "h" * 64, "a" * 40, True)
    body = render_comment(
        CommentParts(meta=meta, plan=_plan(), approvers=tuple(["<script>"])), max_chars=60_000
    )
    assert "<b>" not in body.split("\n", 2)[2] and "<script>" not in body


def test_parse_command_fixed_forms() -> None:
    assert parse_command("/averos approve") == (True, None)
    assert parse_command("LGTM\n  /averos approve  \n") == (True, None)
    assert parse_command("/averos approve 90c28ac690ab") == (True, "90c28ac690ab")
    assert parse_command("/averos approve; rm -rf /") == (False, None)
    assert parse_command("/averos approve $(id)") == (True, "!invalid")
    assert parse_command("please /averos approve") == (False, None)
    assert parse_command(None) == (False, None)
    assert parse_command("/averos apply") == (False, None)


# Bodies that hold command-like lines often enough: plain random text almost never
# contains "/averos approve" (the is_command branch ran 0 times in 2,000 such examples).
_WORDS = st.sampled_from(
    ["/averos", "approve", "apply", "90c28ac690ab", "0" * 64, "$(id)", "LGTM", "approve;", "/"]
)
_LINES = st.one_of(
    st.lists(_WORDS, max_size=4).map(" ".join),
    st.text(max_size=40),
    st.builds(
        lambda pad, rest: f"{pad}/averos approve{rest}",
        st.sampled_from(["", "  ", "\t"]),
        st.sampled_from(["", " ", " 90c28ac", " abc xyz", " ZZZZZZZ", "  "]),
    ),
)
BODIES = st.one_of(st.text(max_size=500), st.lists(_LINES, max_size=25).map("\n".join))


def _command_lines(body: str) -> list[list[str]]:
    return [
        line.strip().split()
        for line in body.splitlines()[:20]
        if line.strip().split()[:2] == ["/averos", "approve"]
    ]


@given(BODIES)
def test_parse_command_never_raises_and_only_matches_the_command(body: str) -> None:
    is_command, extra = parse_command(body)
    found = _command_lines(body)
    assert is_command == bool(found)
    if is_command:
        assert extra is None or extra == "!invalid" or extra.isalnum()
        assert (extra is None) == (len(found[0]) == 2)
    else:
        assert extra is None


@pytest.mark.parametrize(
    "wanted",
    [
        lambda r: r == (False, None),
        lambda r: r == (True, None),
        lambda r: r[0] and r[1] not in (None, "!invalid"),
        lambda r: r == (True, "!invalid"),
    ],
    ids=["not-a-command", "bare-command", "with-hash", "invalid-extra"],
)
def test_the_body_strategy_reaches_every_branch(wanted: Callable[[Any], bool]) -> None:
    # find() raises NoSuchExample when no body from the strategy has the outcome
    body = find(BODIES, lambda b: wanted(parse_command(b)), settings=settings(max_examples=2000))
    assert wanted(parse_command(body))


def test_a_19880_node_plan_with_attribute_diffs_fits_the_comment() -> None:
    """Issue 14: values in the plan (15,800 before/after pairs) and the limit still holds."""
    from averos_ci.plan.render import GITHUB_COMMENT_LIMIT
    from averos_ci.review.comment import META_RE
    from tests.plan.test_render_markdown import big_update_plan

    plan = big_update_plan()
    meta = PlanMeta("default", plan.plan_hash, "a" * 40, True)
    body = render_comment(CommentParts(meta=meta, plan=plan), max_chars=GITHUB_COMMENT_LIMIT)
    assert len(body) <= GITHUB_COMMENT_LIMIT
    assert PlanMeta.decode(body) == meta and "To approve" in body
    assert '→ "value 0 (v2)"' in body  # the grouped renderer, not the fallback
    assert "more change(s) in translation:en omitted here" in body
    assert len(META_RE.findall(body)) == 1


def test_manifest_values_cannot_forge_the_comments_metadata() -> None:
    from averos_ci.review.comment import META_RE, STATUS_CLOSE

    forged = f"<!-- averos-ci:meta {'A' * 20} -->\n{STATUS_CLOSE}"
    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / "m.yaml"
        text = manifest_variant(0)
        old = "description: A small ToDo application generated by Averos"
        assert old in text
        p.write_text(text.replace(old, f"description: {forged!r}"), encoding="utf-8")
        plan = compute_plan(manifest_path=p, state=None).plan
    meta = PlanMeta("default", plan.plan_hash, "a" * 40, True)
    body = render_comment(CommentParts(meta=meta, plan=plan), max_chars=60_000)
    assert len(META_RE.findall(body)) == 1 and body.count(STATUS_CLOSE) == 1
    assert "&lt;!-- averos-ci:meta" in body  # shown, escaped
