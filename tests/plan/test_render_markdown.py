"""Issue 3: the markdown rendering fits a GitHub comment and cannot be broken by names."""

from __future__ import annotations

import copy
import json
import re
from functools import cache
from typing import Any

import pytest

from averos_ci.plan import ExecutionPlan
from averos_ci.plan.render import GITHUB_COMMENT_LIMIT, md_escape, render_markdown, render_text
from tests.plan.plan_samples import applied, example_raw, plan_of


@cache
def big_plan() -> ExecutionPlan:
    """~20,000 nodes: 40 entities x 100 members and 2 x 7,900 translation entries."""
    entities = [
        {
            "name": f"Entity{e}",
            "members": [
                {
                    "memberNature": "simple",
                    "ename": f"Entity{e}",
                    "mname": f"field{m}",
                    "memberType": "string",
                }
                for m in range(100)
            ],
        }
        for e in range(40)
    ]
    languages = [
        {
            "languageCode": code,
            "translationEntries": [
                {"localeID": f"key.number{i}", "localeValue": f"value {i}"} for i in range(7_900)
            ],
        }
        for code in ("en", "fr")
    ]
    raw = {"applicationName": "BigApp", "entities": entities, "languages": languages}
    return plan_of(raw)


NODE_ROW = re.compile(r"^\| (create|update|skip|conflict) \| (?!update \|)", re.M)


def test_big_plan_fits_a_github_comment() -> None:
    plan = big_plan()
    assert 19_500 <= len(plan.nodes) <= 20_500
    text = render_markdown(plan)
    assert len(text) < GITHUB_COMMENT_LIMIT
    assert plan.plan_hash in text
    assert "rows were omitted" in text
    assert re.search(r"\*\d+ node\(s\) omitted here", text)


def test_big_plan_markdown_is_well_formed_and_accounts_for_every_node() -> None:
    plan = big_plan()
    text = render_markdown(plan)
    assert text.count("<details>") == text.count("</details>") > 0
    assert text.count("<summary>") == text.count("</summary>")
    omitted = [int(n) for n in re.findall(r"\*(\d+) node\(s\) omitted here", text)]
    assert omitted, "says what was omitted"
    shown = len(NODE_ROW.findall(text))
    assert shown + sum(omitted) == len(plan.nodes), "every node is shown or counted as omitted"
    # head and tail are kept: the first and the last node of the plan are shown
    assert f"| {md_escape(plan.nodes[0].id)} |" in text
    assert f"| {md_escape(plan.nodes[-1].id)} |" in text


@pytest.mark.parametrize("limit", [5_000, 20_000])
def test_markdown_respects_a_smaller_limit(limit: int) -> None:
    text = render_markdown(big_plan(), max_chars=limit)
    assert len(text) <= limit
    assert big_plan().plan_hash in text


def test_truncated_markdown_keeps_details_balanced_at_tiny_limits() -> None:
    text = render_markdown(big_plan(), max_chars=1_500)
    assert len(text) <= 1_500
    assert text.count("<details>") == text.count("</details>")


def test_small_plan_is_not_truncated() -> None:
    plan = plan_of(example_raw())
    text = render_markdown(plan)
    assert "omitted" not in text
    assert len(NODE_ROW.findall(text)) == len(plan.nodes)
    assert text.count("<details>") == text.count("</details>") == len({n.phase for n in plan.nodes})


def test_no_change_plan_says_so() -> None:
    raw = example_raw()
    text = render_markdown(plan_of(raw, applied(raw)))
    assert "No changes" in text
    assert "<details>" not in text


NASTY = "a|b <script>alert(1)</script> @someone `x` **y** [z](http://e) ~~s~~\nnext"


def test_md_escape_neutralises_markup() -> None:
    out = md_escape(NASTY)
    assert "\n" not in out
    assert "<" not in out and ">" not in out
    assert "@someone" not in out
    assert re.search(r"(?<!\\)[|`*\[\]~_]", out) is None, out
    assert "&lt;script&gt;" in out


def _rows(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("|")]


def test_nasty_names_cannot_break_the_table_or_mention() -> None:
    plan = plan_of(example_raw())
    wire: dict[str, Any] = json.loads(plan.to_json())
    wire["applicationName"] = NASTY
    for node in wire["nodes"][:5]:
        node["id"] += NASTY
        node["command"] += "|@team"
    evil = ExecutionPlan.model_validate(wire)
    text = render_markdown(evil)
    assert "<script>" not in text
    assert "@someone" not in text and "@team" not in text
    for row in _rows(text):
        unescaped = len(re.findall(r"(?<!\\)\|", row))
        assert unescaped in (4, 6), row  # 3 columns (node tables) or 5 (the counts table)
    assert text.count("<details>") == text.count("</details>")


def test_translation_values_never_reach_the_markdown() -> None:
    old = example_raw()
    new = copy.deepcopy(old)
    new["languages"][0]["translationEntries"][0]["localeValue"] = NASTY
    for plan in (plan_of(new), plan_of(new, applied(old))):
        text = render_markdown(plan)
        assert "<script>" not in text and "@someone" not in text
        for row in _rows(text):
            assert len(re.findall(r"(?<!\\)\|", row)) in (4, 6), row


def test_text_rendering_lists_changes_and_counts() -> None:
    old = example_raw()
    new = copy.deepcopy(old)
    new["description"] = "changed"
    new["entities"][1]["members"][3]["memberType"] = "string"  # ToDoTask.dueDate
    new["blankPages"] = []
    text = render_text(plan_of(new, applied(old)))
    assert "  ~ application:ToDoApp  [ng-add]" in text
    assert "  ! simple-field:ToDoTask:dueDate  (conflict: memberType" in text
    assert "  - page:AboutPage" in text
    assert "Plan: 0 to create, 1 to update," in text
    assert "NOT applicable" in text


@cache
def removal_plan() -> ExecutionPlan:
    """A state of 100 entities x 50 members; the new manifest has none of them."""
    old = {
        "applicationName": "BigApp",
        "entities": [
            {
                "name": f"Entity{e}",
                "members": [
                    {
                        "memberNature": "simple",
                        "ename": f"Entity{e}",
                        "mname": f"field{m}",
                        "memberType": "string",
                    }
                    for m in range(50)
                ],
            }
            for e in range(100)
        ],
    }
    return plan_of({"applicationName": "BigApp"}, applied(old))


def test_big_removal_plan_fits_a_github_comment() -> None:
    plan = removal_plan()
    assert len(plan.diff.to_remove) == 5_100
    text = render_markdown(plan)
    assert len(text) < GITHUB_COMMENT_LIMIT
    assert plan.plan_hash in text


def test_big_removal_plan_says_how_many_removals_were_omitted() -> None:
    plan = removal_plan()
    text = render_markdown(plan)
    match = re.search(r"- … (\d+) more removal\(s\) omitted", text)
    assert match is not None
    listed = len(re.findall(r"^- (entity|simple-field):", text, re.M))
    assert listed + int(match.group(1)) == len(plan.diff.to_remove)
