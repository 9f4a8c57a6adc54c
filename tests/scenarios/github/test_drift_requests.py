"""What a scheduled drift check costs in GitHub requests (issue 40: thousands of projects in
one repository, an Actions token allowed 1,000 requests an hour): one batch job checks 20
projects, eight of them with merged but unapplied changes. Each project's drift record names its
open issue, so a run fetches that one issue; the open drift issues are listed at most once per
job (plus the re-list after each issue it opens, which catches a concurrent run's duplicate);
a clean project with no record costs nothing. The issue closed by hand, relabelled or edited
by someone, the recorded issue of a fixed project and the issue a crashed run left unrecorded
are each handled within that bound."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import parse_qs

import pytest

from tests.github.gh_fake import BOT, FakeGitHub, Recorded
from tests.github.gh_monorepo import Monorepo, make_monorepo, project_name
from tests.github.gh_world import git
from tests.openapi_check import load_spec, spec_path

pytestmark = pytest.mark.slow

SPEC = spec_path()  # resolved before a test installs its private $HOME
LABEL = "averos-drift"
PROJECTS, WAITING = 20, 8  # apps/p00 … apps/p07 wait unapplied: their issues are open
FAST = {"pushBackoffSeconds": 0.05, "pushBackoffMaxSeconds": 1}


def apply_batch(mono: Monorepo, names: list[str], files: dict[str, str]) -> None:
    """A pull request adding ``names``: planned by one batch job (a matrix entry of many
    projects), each plan approved by a comment, merged and applied by one batch job."""
    world, batch = mono.world, " ".join(names)
    head = mono.open_pr(1, "clean", files)
    mono.run("pull_request", world.pr_event("opened", 1), head, batch)
    for name in names:
        mono.fake.add_comment(1, user="bob", body=f"/averos approve {mono.plan_hash(1, name)}")
    merge = mono.merge(1, "clean")
    result = mono.run("push", world.push_event(merge), merge, batch)
    assert result.code == 0, result.stdout[-600:] + result.stderr[-1500:]
    assert all(mono.state_of(n) is not None for n in names)


def check(mono: Monorepo, names: list[str]) -> list[Recorded]:
    """One scheduled run: every project as one batch job (one process); its requests."""
    start = len(mono.fake.requests)
    [result] = mono.drift([" ".join(names)])
    assert result.code == 0, result.stdout[-600:] + result.stderr[-1500:]
    return mono.fake.requests[start:]


def listings(sent: list[Recorded]) -> int:
    """How many times the open issues were listed (each listing's first page)."""
    return sum(
        1
        for r in sent
        if r.method == "GET" and r.path.endswith("/issues") and "page" not in parse_qs(r.query)
    )


def fetched(sent: list[Recorded]) -> list[int]:
    return sorted(
        int(r.path.rsplit("/", 1)[1])
        for r in sent
        if r.method == "GET" and r.path.rsplit("/", 2)[1] == "issues" and r.path[-1].isdigit()
    )


def open_issues(fake: FakeGitHub) -> dict[str, int]:
    """project -> its open drift issue; fails on two open for one project."""
    found: dict[str, int] = {}
    for issue in fake.issues_labelled(LABEL):
        project = str(issue["title"]).rsplit(" in ", 1)[1]
        assert project not in found, f"two open issues for {project}"
        found[project] = int(issue["number"])
    return found


def recorded_issues(mono: Monorepo) -> dict[str, object]:
    """project -> the issue its drift record on origin's state branch names."""
    origin = mono.world.origin
    listing = git(origin, "ls-tree", "-r", "--name-only", "averos-state", "--", ".drift")
    return {
        rel.removeprefix(".drift/").removesuffix(".json"): json.loads(
            git(origin, "show", f"averos-state:{rel}")
        ).get("issue")
        for rel in listing.splitlines()
    }


def test_a_batch_fetches_each_recorded_issue_and_lists_at_most_once(
    tmp_path: Path, fake: FakeGitHub
) -> None:
    spec = load_spec(SPEC)
    mono = make_monorepo(tmp_path, fake, github=FAST)
    names = [project_name(i) for i in range(PROJECTS)]
    applied = [3, *range(WAITING, PROJECTS)]
    clean: dict[str, str] = {}  # applied by a pull request: nothing to report
    for i in applied:
        clean.update(mono.project_files(i))
    apply_batch(mono, [project_name(i) for i in applied], clean)
    # merged, never applied: a finding each (p03's second entity, the others whole)
    waiting = mono.project_files(3, extra_entities=1)
    for i in range(WAITING):
        if i != 3:
            waiting.update(mono.project_files(i))
    mono.world.commit("waiting", waiting, "seven projects and p03 grows")
    mono.world.merge("waiting")

    # 1. the first run opens eight issues and records each one's number; the open issues are
    # listed once, then again after each issue opened (the race check); the twelve clean
    # projects use the listing already there
    sent = check(mono, names)
    issues = open_issues(fake)
    assert sorted(issues) == names[:WAITING]
    assert listings(sent) == 1 + WAITING
    assert recorded_issues(mono) == issues
    assert [r.path for r in sent if r.path == "/user"] == ["/user"]  # asked once per job

    # a crashed run opened p19's issue and never recorded it: a clean project with no record
    orphan = fake.add_issue(
        title=f"averos-ci: drift in {names[-1]}",
        body=f'<!-- averos-ci:issue "drift:{names[-1]}" -->\nleft by a crashed run',
        labels=(LABEL,),
        user=BOT,
    )["number"]

    # 2. nothing changed: one GET per recorded issue and one GET /user, no listing, nothing
    # written (the old check listed every open drift issue for each of the 20 projects)
    sent = check(mono, names)
    assert listings(sent) == 0
    assert fetched(sent) == sorted(issues.values())
    assert [(r.method, r.path) for r in sent if r.method != "GET"] == []
    assert len(sent) == WAITING + 1
    assert fake.issues[orphan]["state"] == "open"  # its record says none: nothing spent on it

    # 3. someone closed p00's issue by hand, edited p01's text, took the label off p02's;
    # p03's change is reverted. One listing, and one re-list per issue opened.
    p0, p1, p2, p3 = names[:4]
    fake.issues[issues[p0]].update(state="closed", state_reason="completed")
    fake.issues[issues[p1]]["body"] += "\nedited by someone"
    fake.issues[issues[p2]]["labels"] = []
    mono.world.commit("p03-back", mono.project_files(3), "p03 as applied")
    mono.world.merge("p03-back")
    sent = check(mono, names)
    now = open_issues(fake)
    assert now[p0] > issues[p0] and now[p2] > issues[p2]  # no longer theirs: opened anew
    assert now[p1] == issues[p1] and not fake.issues[issues[p1]]["body"].endswith("someone")
    assert p3 not in now and fake.issues[issues[p3]]["state"] == "closed"
    assert fake.issues[orphan]["state"] == "closed"  # the batch listed: repaired for free
    assert sorted(now) == [p for p in names[:WAITING] if p != p3]
    assert listings(sent) == 1 + 2
    assert fetched(sent) == sorted(issues.values())
    assert recorded_issues(mono) == now  # p03's record removed, the new numbers recorded

    # 4. and the next run is back to one GET per open issue
    sent = check(mono, names)
    assert listings(sent) == 0 and fetched(sent) == sorted(now.values())
    assert len(sent) == len(now) + 1

    assert fake.check_exchanges(spec, r"/issues(/\d+(/comments)?)?$|/labels") > 40
