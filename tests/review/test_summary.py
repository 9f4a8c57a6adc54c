"""The summary comment of a pull request of many projects: one row per project from the bot's
own plan comments and the project statuses, cut where the comment's budget ends and said so;
nobody else's comment is read. The flow is tests/scenarios/github/test_gh_large_pr.py."""

from __future__ import annotations

from averos_ci.review.comment import PlanMeta, marker
from averos_ci.review.summary import SUMMARY_MARKER, render_summary, summary_rows

BOT = "github-actions[bot]"


def plan_comment(project: str, *, user: str = BOT, create: int = 2) -> dict[str, object]:
    meta = PlanMeta(project, "ab" * 32, "c" * 40, True, counts={"create": create, "update": 1})
    return {
        "user": {"login": user},
        "body": f"{marker(project)}\n{meta.encode()}\nplan",
        "html_url": f"https://github.com/o/r/pull/1#issuecomment-{len(project)}",
    }


def test_one_row_per_project_with_counts_status_and_link() -> None:
    comments = [plan_comment("apps/a"), plan_comment("apps/b", user="mallory", create=99)]
    statuses = {"apps/a": ("pending", "plan abababababab awaits approval")}
    rows = summary_rows(comments, statuses, ["apps/a", "apps/b"], bot_login=BOT)
    body = render_summary(rows, max_chars=65_000)
    assert body.startswith(SUMMARY_MARKER) and "2 projects in this pull request" in body
    a = next(line for line in body.splitlines() if "`apps/a`" in line)
    assert "⏳ plan abababababab awaits approval | +2 ~1 -0 | `abababababab` |" in a
    assert "[plan comment](https://github.com/o/r/pull/1#issuecomment-6)" in a
    b = next(line for line in body.splitlines() if "`apps/b`" in line)
    assert "+99" not in b and "no plan comment yet" in b  # another user's comment is not read


def test_the_table_is_cut_at_the_budget_and_says_how_many_are_left() -> None:
    names = [f"apps/p{i:03d}" for i in range(200)]
    rows = summary_rows([plan_comment(n) for n in names], {}, names, bot_login=BOT)
    body = render_summary(rows, max_chars=4_000)
    assert len(body) <= 4_000
    shown = sum(1 for line in body.splitlines() if line.startswith("| `apps/"))
    assert 0 < shown < 200
    assert f"… and {200 - shown} more project(s): see their commit statuses." in body
