"""A pull request touching many projects (issue 40) on the fake GitHub: one summary comment
lists every project with its status, change counts, planHash and a link to its own plan
comment; the plan matrix's content-creating requests stay within a bound — two per project
(its comment, its status) and three for the whole run (the aggregate status when it changes,
the gate's aggregate and the summary) — counted against GitHub's hourly secondary limit
scaled to the pull request's size (500 for 200 projects); an approval still counts in such a
pull request. bench/many_projects_pr.py measures the same for 200 projects."""

from __future__ import annotations

from pathlib import Path

import pytest

from averos_ci.review.project_status import MANY_PROJECTS
from averos_ci.review.summary import SUMMARY_MARKER
from tests.github.gh_fake import FakeGitHub, SecondaryLimits
from tests.github.gh_large_pr import plan_large_pr, run_job, writes_since
from tests.github.gh_monorepo import make_monorepo, project_name

pytestmark = pytest.mark.slow

COUNT = MANY_PROJECTS + 1  # the smallest large pull request
# GitHub's secondary limit: about 500 content-creating requests an hour, here for COUNT
# projects where a 200-project pull request must fit in 500
HOURLY = 500 * COUNT // 200


def test_a_large_pull_request_is_one_summary_and_bounded_writes(
    tmp_path: Path, fake: FakeGitHub
) -> None:
    fake.page_size = 100
    fake.enforce_secondary_limits(SecondaryLimits(windows=((HOURLY, 3600.0),)))
    mono = make_monorepo(tmp_path, fake)
    pr = plan_large_pr(mono, COUNT)

    assert not fake.rate_limited(), pr.writes
    assert pr.writes["POST comments"] == COUNT + 1, pr.writes  # a comment each, one summary
    assert pr.writes["POST statuses"] <= COUNT + 2, pr.writes
    assert pr.writes["PATCH comments/{id}"] == 0, pr.writes  # no stamp per comment
    assert pr.total <= 2 * COUNT + 3 <= HOURLY, pr.writes

    (summary,) = [c for c in fake.bot_comments(1) if c["body"].startswith(SUMMARY_MARKER)]
    body = summary["body"]
    assert f"{COUNT} projects in this pull request" in body
    for i in range(COUNT):
        name = project_name(i)
        sticky = next(c for c in fake.bot_comments(1) if f"project={name} " in c["body"][:60])
        row = next(line for line in body.splitlines() if f"| `{name}` |" in line)
        assert "awaits approval" in row and "+" in row, row  # its status and counts
        assert f"[plan comment]({sticky['html_url']})" in row
    gate = {s["context"]: s for s in fake.statuses if s["sha"] == pr.head}["averos-ci/plan"]
    assert gate["state"] == "pending" and "waiting for approval" in gate["description"]

    # an approval counts without the comment's stamp (the bot's records say when it was
    # shown); its own requests are not the plan run's budget
    fake.enforce_secondary_limits(SecondaryLimits(windows=()))
    first = project_name(0)
    plan_hash = mono.plan_hash(1, first)
    comment = fake.add_comment(1, user="bob", body=f"/averos approve {plan_hash[:12]}")
    event = mono.world.comment_event(1, comment)
    approved = run_job(
        mono, "issue_comment", event, pr.head, "auto", "--config", f"{first}/averos.config.json"
    )
    assert approved.outputs.get("approved") == "true", approved.stdout + approved.stderr

    # the gate again: the summary shows the approval, in place (one edit, no new comment)
    start = len(fake.requests)
    again = run_job(mono, "issue_comment", event, pr.head, "gate")
    assert again.code == 0, again.stderr
    assert writes_since(mono, start)["PATCH comments/{id}"] == 1
    edited = fake.comments[summary["id"]]["body"]
    row = next(line for line in edited.splitlines() if f"| `{first}` |" in line)
    assert "approved by bob" in row, row
