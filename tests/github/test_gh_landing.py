"""Landing a project's commit on a state branch that other projects' jobs move: re-applied on
the current tip before its first push, and on the new tip with back-off when another job's push
wins the race; handed back when its own folder moved."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from averos_ci.errors import ConfigError
from averos_ci.forge.settings import load_settings
from averos_ci.statebranch.landing import Backoff, land, tries
from averos_ci.statebranch.state_branch import GitError, StateBranch
from tests.github.gh_world import git
from tests.github.test_gh_state_branch import clones, write

__all__ = ["clones"]  # the fixture: a bare origin and two clones


def files(origin: Path) -> dict[str, str]:
    names = git(origin, "ls-tree", "-r", "--name-only", "averos-state").split()
    return {n: git(origin, "show", f"averos-state:{n}") for n in names}


def other_job(b: Path, tmp_path: Path, project: str, text: str) -> str:
    """Another job (another clone) lands a commit for ``project``; returns it."""
    sb = StateBranch(b)
    src = write(tmp_path / f"other-{project}-{text}", {"state.json": text})
    commit = sb.commit(parent=sb.fetch(), subdir=project, src=src, message=f"{project} {text}")
    assert sb.push(commit)
    return commit


class RacedBranch(StateBranch):
    """The state branch of a job whose pushes another job's push beats: ``race`` (another
    project's job landing its commit) runs right before each of the first ``times`` pushes."""

    def __init__(self, repo_dir: Path, race: Callable[[], object], times: int) -> None:
        super().__init__(repo_dir)
        self.race, self.times = race, times

    def push(self, commit: str) -> bool:
        if self.times > 0:
            self.times -= 1
            self.race()
        return super().push(commit)


def test_a_commit_made_on_an_old_tip_is_reapplied_on_the_current_one_before_its_push(
    clones: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    origin, a, b = clones
    sa = StateBranch(a)
    base = sa.fetch()
    mine = write(tmp_path / "mine", {"state.json": '{"p0": 1}'})
    commit = sa.commit(parent=base, subdir="apps/p0", src=mine, message="p0: applied")
    theirs = other_job(b, tmp_path, "apps/p2", '{"p2": 1}')  # while this job planned or ran
    waits: list[float] = []
    landed = land(
        sa, project="apps/p0", commit=commit, base=base, backoff=Backoff(), sleep=waits.append
    )
    assert landed is not None and landed.retries == 0 and waits == []  # no push lost
    assert git(origin, "rev-parse", f"{landed.tip}^") == theirs  # on top, never forced


def test_rejected_by_another_project_is_reapplied_on_the_new_tip(
    clones: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    origin, a, b = clones
    other_job(b, tmp_path, "apps/p1", '{"p1": 1}')
    theirs: list[str] = []
    sa = RacedBranch(  # another project's job lands first: ours is rejected
        a, lambda: theirs.append(other_job(b, tmp_path, "apps/p2", '{"p2": 1}')), times=1
    )
    base = sa.fetch()
    mine = write(tmp_path / "mine", {"state.json": '{"p0": 1}', "runs/r.json": "{}"})
    commit = sa.commit(parent=base, subdir="apps/p0", src=mine, message="p0: applied")
    waits: list[float] = []
    landed = land(
        sa,
        project="apps/p0",
        commit=commit,
        base=base,
        backoff=Backoff(first=0.01, cap=0.02),
        sleep=waits.append,
    )
    assert landed is not None and landed.retries == 1
    assert len(waits) == 1 and 0 <= waits[0] <= 0.01
    assert git(origin, "rev-parse", "averos-state") == landed.tip
    assert git(origin, "rev-parse", f"{landed.tip}^") == theirs[0]  # on top, never forced
    assert git(origin, "log", "-1", "--format=%s", landed.tip) == "p0: applied"
    assert files(origin) == {  # nobody's update was lost
        "apps/p0/runs/r.json": "{}",
        "apps/p0/state.json": '{"p0": 1}',
        "apps/p1/state.json": '{"p1": 1}',
        "apps/p2/state.json": '{"p2": 1}',
    }


def test_first_write_of_the_branch_lands_over_another_projects_first_write(
    clones: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    origin, a, b = clones
    sa = StateBranch(a)
    assert sa.fetch() is None
    mine = write(tmp_path / "mine", {"apply.json": "{}"})
    commit = sa.commit(parent=None, subdir="p0", src=mine, message="p0: claim")
    other_job(b, tmp_path, "p1", "{}")  # the orphan branch is created by the other job
    landed = land(sa, project="p0", commit=commit, base=None, backoff=Backoff(first=0))
    assert landed is not None and landed.retries == 0
    assert sorted(files(origin)) == ["p0/apply.json", "p1/state.json"]


def test_own_folder_moved_is_handed_back_and_nothing_is_pushed(
    clones: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    origin, a, b = clones
    other_job(b, tmp_path, "p0", '{"v": 1}')
    sa = StateBranch(a)
    base = sa.fetch()
    mine = write(tmp_path / "mine", {"state.json": '{"v": "mine"}'})
    commit = sa.commit(parent=base, subdir="p0", src=mine, message="p0 mine")
    other_job(b, tmp_path, "p1", "{}")
    theirs = other_job(b, tmp_path, "p0", '{"v": 2}')  # another job wrote *this* project
    assert land(sa, project="p0", commit=commit, base=base, backoff=Backoff(first=0)) is None
    assert git(origin, "rev-parse", "averos-state") == theirs
    assert json.loads(files(origin)["p0/state.json"]) == {"v": 2}


def test_spent_budget_is_a_located_error_that_names_the_setting(
    clones: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    origin, a, b = clones
    tips: list[str] = []
    sa = RacedBranch(a, lambda: tips.append(other_job(b, tmp_path, "p1", str(len(tips)))), 9)
    mine = write(tmp_path / "mine", {"state.json": "{}"})
    commit = sa.commit(parent=None, subdir="p0", src=mine, message="p0")
    with pytest.raises(GitError, match="kept moving it") as err:
        land(sa, project="p0", commit=commit, base=None, backoff=Backoff(budget=0))
    assert "pushRetrySeconds" in (err.value.hint or "")
    assert git(origin, "rev-parse", "averos-state") == tips[-1]


def test_backoff_doubles_with_full_jitter_up_to_the_cap(tmp_path: Path) -> None:
    settings, _ = load_settings(
        {"pushBackoffSeconds": 0.5, "pushBackoffMaxSeconds": 3, "pushRetrySeconds": 120},
        config_path=tmp_path / "averos.config.json",
        repo_root=tmp_path,
    )
    backoff = Backoff.from_settings(settings)
    assert backoff == Backoff(first=0.5, cap=3.0, budget=120.0)
    top = [backoff.delay(n, rng=lambda lo, hi: hi) for n in range(1, 7)]
    assert top == [0.5, 1.0, 2.0, 3.0, 3.0, 3.0]
    assert backoff.delay(40, rng=lambda lo, hi: lo) == 0.0  # full jitter: from zero
    assert 0 <= backoff.delay(3) <= 2.0  # the default draws uniformly


def test_tries_sleep_between_and_stop_when_the_budget_is_spent() -> None:
    now = [0.0]
    waits: list[float] = []

    def sleep(seconds: float) -> None:
        waits.append(seconds)
        now[0] += seconds

    backoff = Backoff(first=1, cap=4, budget=10)
    done = list(tries(backoff, sleep=sleep, clock=lambda: now[0]))
    assert done == list(range(1, len(done) + 1)) and len(done) >= 3
    assert now[0] == pytest.approx(10)  # tried until the budget was spent, never past it
    assert all(0 <= w <= 4 for w in waits)
    assert list(tries(Backoff(budget=0), sleep=sleep, clock=lambda: now[0])) == [1]


def test_out_of_range_back_off_setting_is_a_located_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="/github/pushRetrySeconds") as err:
        load_settings(
            {"pushRetrySeconds": -1}, config_path=tmp_path / "averos.config.json", repo_root=None
        )
    assert err.value.hint
