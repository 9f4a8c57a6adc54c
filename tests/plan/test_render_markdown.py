"""Issue 3: the markdown rendering fits a GitHub comment and cannot be broken by names."""

from __future__ import annotations

import copy
import json
import re
from functools import cache
from typing import Any

import pytest

from averos_ci.plan import ExecutionPlan
from averos_ci.plan.render import (
    GITHUB_COMMENT_LIMIT,
    md_escape,
    render_markdown,
    render_rich,
    render_text,
)
from tests.plan.plan_samples import applied, example_raw, plan_of


def big_raw(*, version: str = "") -> dict[str, Any]:
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
                {"localeID": f"key.number{i}", "localeValue": f"value {i}{version}"}
                for i in range(7_900)
            ],
        }
        for code in ("en", "fr")
    ]
    return {"applicationName": "BigApp", "entities": entities, "languages": languages}


@cache
def big_plan() -> ExecutionPlan:
    return plan_of(big_raw())


@cache
def big_update_plan() -> ExecutionPlan:
    """The same app after a change of every translation text and a new member per entity:
    15,800 updates with before/after values, 40 creates."""
    head = big_raw(version=" (v2)")
    for entity in head["entities"]:
        entity["members"].append(
            {
                "memberNature": "simple",
                "ename": entity["name"],
                "mname": "summary",
                "memberType": "textarea",
            }
        )
    return plan_of(head, applied(big_raw()))


ITEM = re.compile(r"^ *- `([+~!-])` ", re.M)
OMITTED_CHANGES = re.compile(r"… \*(\d+) more change\(s\) in ")
OMITTED_GROUPS = re.compile(r"… \*\d+ more element\(s\) with (\d+) change\(s\) omitted")


def _accounted(text: str) -> tuple[int, int]:
    shown = len(ITEM.findall(text))
    omitted = sum(map(int, OMITTED_CHANGES.findall(text)))
    omitted += sum(map(int, OMITTED_GROUPS.findall(text)))
    return shown, omitted


PLANS = [pytest.param(big_plan, id="creates"), pytest.param(big_update_plan, id="updates")]


@pytest.mark.parametrize("make", PLANS)
def test_big_plan_fits_a_github_comment(make: Any) -> None:
    plan = make()
    assert 19_500 <= len(plan.nodes) <= 20_500
    text = render_markdown(plan)
    assert len(text) < GITHUB_COMMENT_LIMIT
    assert plan.plan_hash in text
    assert "changes were omitted" in text
    assert OMITTED_CHANGES.search(text)


@pytest.mark.parametrize("make", PLANS)
def test_big_plan_markdown_is_well_formed_and_accounts_for_every_change(make: Any) -> None:
    plan = make()
    text = render_markdown(plan)
    assert text.count("<details>") == text.count("</details>") > 0
    assert text.count("<summary>") == text.count("</summary>")
    shown, omitted = _accounted(text)
    assert omitted, "says what was omitted"
    changes = len(plan.executable_nodes()) + len(plan.diff.conflicts) + len(plan.diff.to_remove)
    assert shown + omitted == changes, "every change is shown or counted as omitted"


def test_big_update_plan_keeps_head_and_tail_of_long_groups_with_values() -> None:
    plan = big_update_plan()
    text = render_markdown(plan)
    fr = [n.id.rpartition(":")[2] for n in plan.nodes if n.id.startswith("translation-entry:fr")]
    for key in (fr[0], fr[-1]):  # head and tail of the language's group
        n = key.removeprefix("key.number")
        assert f'`~` {key}: "value {n}" → "value {n} (v2)"' in text
    assert "`+` summary: textarea" in text


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
    assert _accounted(text) == (len(plan.nodes), 0)
    assert "```mermaid" in text


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
        assert unescaped in (4, 8), row  # 3 columns (node tables) or 7 (the counts table)
    assert text.count("<details>") == text.count("</details>")


def _unescaped_markup(line: str) -> list[str]:
    """Markup characters not escaped in a change line, after its static prefix."""
    rest = re.sub(r"^ *- (`(?:[+~!>-]|-/\+)` |\\[+~-] |\*\*)", "", line)
    return re.findall(r"(?<!\\)[|`*\[\]~_<>]", rest.removesuffix("**"))


def test_manifest_values_reach_the_markdown_escaped() -> None:
    old = example_raw()
    new = copy.deepcopy(old)
    new["languages"][0]["translationEntries"][0]["localeValue"] = NASTY
    new["description"] = NASTY + "```\n# heading"
    for plan in (plan_of(new), plan_of(new, applied(old))):
        text = render_markdown(plan)
        assert "<script>" not in text and "@someone" not in text
        assert "&lt;script&gt;" in text  # shown, escaped
        assert "\\`x\\`" in text and "a\\|b" in text
        for line in text.splitlines():
            if re.match(r" *- ", line):
                assert _unescaped_markup(line) == [], line
        for row in _rows(text):
            assert len(re.findall(r"(?<!\\)\|", row)) == 8, row  # only the counts table


def test_text_rendering_lists_changes_and_counts() -> None:
    old = example_raw()
    new = copy.deepcopy(old)
    new["description"] = "changed"
    new["entities"][1]["members"][3]["memberType"] = "string"  # ToDoTask.dueDate
    new["blankPages"] = []
    text = render_text(plan_of(new, applied(old)))
    assert "~ application:ToDoApp  [ng-add]\n" in text
    assert '    ~ description: "A small ToDo application generated by Averos" → "changed"' in text
    assert "  entity:ToDoTask\n    -/+ dueDate  (forces replacement: memberType" in text
    assert "(forces replacement: memberType cannot be updated in place)" in text
    assert '- page:AboutPage  (destroy: no longer in the manifest)\n    - space: "public"' in text
    # the replacement is counted as one (issue 38 item 5), not as an update
    assert (
        "Plan: 0 to create, 1 to update, 1 to replace, 30 unchanged, 0 conflict(s), 1 to destroy."
        in text
    )
    assert "NOT applicable" not in text and "No changes" not in text


def test_text_shortens_long_values_and_escapes_control_characters() -> None:
    old = example_raw()
    new = copy.deepcopy(old)
    new["description"] = "x" * 500 + "\x1b[31m"
    text = render_text(plan_of(new, applied(old)))
    assert "\x1b" not in text
    line = next(x for x in text.splitlines() if "~ description:" in x)
    assert line.endswith("…[+452 chars]") and len(line) < 150  # of 512 chars of JSON


def test_coloured_text_marks_create_update_remove() -> None:
    from io import StringIO

    from rich.console import Console

    old = example_raw()
    new = copy.deepcopy(old)
    new["description"] = "changed"
    new["blankPages"] = []
    new["entities"][0]["members"].append(
        {"memberNature": "simple", "ename": "ToDoArea", "mname": "note", "memberType": "string"}
    )
    plan = plan_of(new, applied(old))
    buf = StringIO()
    Console(file=buf, force_terminal=True, color_system="standard").print(
        render_rich(plan), end="", soft_wrap=True
    )
    coloured = buf.getvalue()
    assert "\x1b[32m    + note: string" in coloured  # green create
    assert "\x1b[33m~ application:ToDoApp" in coloured  # yellow update
    assert "\x1b[31m- page:AboutPage" in coloured  # red removal
    assert re.sub(r"\x1b\[[0-9;]*m", "", coloured) == render_text(plan)


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
    block = text[: match.start()]  # the "Destroyed or replaced" list, before the sections
    listed = len(re.findall(r"^- `-` (entity|simple-field):", block, re.M))
    assert listed + int(match.group(1)) == len(plan.diff.to_remove)
