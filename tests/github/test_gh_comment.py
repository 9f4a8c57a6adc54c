"""The sticky comment: marker + author check, hidden metadata, size, escaping, the command."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from averos_ci.plan import ExecutionPlan, compute_plan
from averos_ci.review.comment import (
    ApprovalRef,
    PlanMeta,
    find_sticky,
    marker,
    parse_command,
    render_plan_comment,
    restamp,
    status_text,
)
from averos_ci.review.markdown import escape, fallback_markdown
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
    body = render_plan_comment(meta=meta, plan=plan, max_chars=60_000)
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
    body = render_plan_comment(meta=meta, plan=plan, max_chars=60_000)
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
    body = render_plan_comment(meta=meta, plan=plan, max_chars=60_000)
    assert len(body) <= 60_000
    assert PlanMeta.decode(body) == meta and "To approve" in body
    assert len(fallback_markdown(plan, max_chars=5_000)) <= 5_000


def test_manifest_strings_are_escaped() -> None:
    hostile = "<img src=x onerror=alert(1)> [link](http://evil) @team\n# heading | cell"
    text = escape(hostile)
    assert "<img" not in text and "](" not in text and "\n" not in text
    assert "@\u200bteam" in text and "\\|" in text
    meta = PlanMeta("pro<b>ject", "h" * 64, "a" * 40, True)
    body = render_plan_comment(meta=meta, plan=_plan(), max_chars=60_000, approvers=["<script>"])
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


@given(st.text(max_size=500))
def test_parse_command_never_raises_and_only_matches_the_command(body: str) -> None:
    is_command, extra = parse_command(body)
    if is_command:
        assert any(line.strip().split()[:2] == ["/averos", "approve"] for line in body.splitlines())
        assert extra is None or extra == "!invalid" or extra.isalnum()


def test_a_19880_node_plan_with_attribute_diffs_fits_the_comment() -> None:
    """Issue 14: values in the plan (15,800 before/after pairs) and the limit still holds."""
    from averos_ci.plan.render import GITHUB_COMMENT_LIMIT
    from averos_ci.review.comment import META_RE
    from tests.plan.test_render_markdown import big_update_plan

    plan = big_update_plan()
    meta = PlanMeta("default", plan.plan_hash, "a" * 40, True)
    body = render_plan_comment(meta=meta, plan=plan, max_chars=GITHUB_COMMENT_LIMIT)
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
    body = render_plan_comment(meta=meta, plan=plan, max_chars=60_000)
    assert len(META_RE.findall(body)) == 1 and body.count(STATUS_CLOSE) == 1
    assert "&lt;!-- averos-ci:meta" in body  # shown, escaped
