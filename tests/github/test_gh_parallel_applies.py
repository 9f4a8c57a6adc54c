"""Applies of different projects of one repository, started at once as separate processes
against one bare origin (a matrix): all land, nothing is lost; a race on the same project is
still refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.github.gh_fake import FakeGitHub
from tests.github.gh_monorepo import make_monorepo, project_name
from tests.github.gh_world import git

pytestmark = pytest.mark.slow

PROJECTS = 6
FAST = {"pushBackoffSeconds": 0.05, "pushBackoffMaxSeconds": 1}


def test_applies_of_different_projects_all_land(tmp_path: Path, fake: FakeGitHub) -> None:
    mono = make_monorepo(tmp_path, fake, github=FAST)
    names = [project_name(i) for i in range(PROJECTS)]
    files: dict[str, str] = {}
    for i in range(PROJECTS):
        files.update(mono.project_files(i))
    head = mono.open_pr(1, "apps", files)
    approved = mono.plan_and_approve(1, head, names)
    merge = mono.merge(1, "apps")

    results = mono.wait(mono.start_applies((merge, p) for p in names))

    failed = [(r.code, r.stdout[-800:] + r.stderr[-800:]) for r in results if r.code != 0]
    assert not failed, failed
    state_files = mono.world.state_files()
    for i, name in enumerate(names):
        state = mono.state_of(name)
        assert state is not None, f"{name}: no state (a lost update)"
        assert state["serial"] == 1
        assert state["manifest"]["application"]["applicationName"] == f"App{i}"
        assert {f"application:App{i}", f"entity:Task{i}"} <= set(state["nodeStates"])
        runs = [p for p in state_files if p.startswith(f"{name}/runs/")]
        assert len(runs) == 1
        assert json.loads(state_files[runs[0]])["planHash"] == approved[name]
    leftovers = [p for p in state_files if p.endswith(("/apply.json", "/checkpoints.json"))]
    assert leftovers == []  # no claim left behind
    assert {p.split("/runs/")[0] for p in state_files if "/runs/" in p} == set(names)
    # one linear history holding every project's claim and result (nothing forced over)
    log = git(mono.world.origin, "log", "--format=%s", "averos-state").splitlines()
    for name in names:
        assert sum(f"averos-ci: {name}: claim apply of" in s for s in log) == 1, log
        assert sum(f"averos-ci: {name}: applied" in s for s in log) == 1, log
    merges = git(mono.world.origin, "rev-list", "--merges", "--count", "averos-state")
    assert merges == "0"
    assert all("re-planning" not in r.stdout for r in results)  # no project had to re-plan


def test_same_project_race_is_refused_while_other_projects_land(
    tmp_path: Path, fake: FakeGitHub
) -> None:
    mono = make_monorepo(tmp_path, fake, github=FAST)
    names = [project_name(i) for i in range(3)]
    files: dict[str, str] = {}
    for i in range(3):
        files.update(mono.project_files(i))
    head1 = mono.open_pr(1, "apps", files)
    mono.plan_and_approve(1, head1, names)
    # PR 2 changes p00 again, planned against the same (empty) state as PR 1
    head2 = mono.open_pr(2, "more", mono.project_files(0, extra_entities=1), base="apps")
    mono.plan_and_approve(2, head2, [names[0]])
    merge1 = mono.merge(1, "apps")
    merge2 = mono.merge(2, "more")

    runs = [(merge1, n) for n in names] + [(merge2, names[0])]
    results = mono.wait(mono.start_applies(runs))

    others = results[1:3]
    assert [r.code for r in others] == [0, 0], [r.stderr[-800:] for r in others]
    race = [results[0], results[3]]
    assert sorted(r.code for r in race) == [0, 1], [(r.code, r.stderr[-800:]) for r in race]
    loser = next(r for r in race if r.code == 1)
    assert (
        "another apply holds" in loser.stderr
        or "plan changed" in loser.stderr
        or "is not the plan of this merge" in loser.stderr
        or "another job claimed" in loser.stderr
        or "changed by another job" in loser.stderr
        # the later merge's job catches up on the earlier merge first: the same plan and
        # commit as the claim the other run holds, so it is refused as not that run's re-run
        or ("was started by run" in loser.stderr and "not by this run" in loser.stderr)
    ), loser.stderr
    state = mono.state_of(names[0])
    assert state is not None and state["serial"] == 1  # exactly one apply of p00 landed
    winner_entities = 2 if results[3].code == 0 else 1
    assert len(state["manifest"]["entities"]) == winner_entities
    for name in names[1:]:
        other = mono.state_of(name)
        assert other is not None and other["serial"] == 1
    files_now = mono.world.state_files()
    assert not [p for p in files_now if p.endswith(("/apply.json", "/checkpoints.json"))]
