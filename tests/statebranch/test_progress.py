"""Progress pushes while an apply runs are best effort: a checkpoint only saves re-running
nodes, so one rejected because another project's job moved the state branch is left to the next
push (not re-applied and pushed again, which made every job of a large matrix collide more);
the final push still lands everything, and a foreign edit of this project still stops the run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from averos_ci.execute.events import NodeSucceeded
from averos_ci.statebranch.errors import ApplyRefused
from averos_ci.statebranch.landing import Backoff
from averos_ci.statebranch.progress import ProgressPusher, ProjectWriter
from averos_ci.statebranch.state_branch import StateBranch
from tests.github.gh_world import git
from tests.github.test_gh_landing import other_job
from tests.github.test_gh_state_branch import clones, write

__all__ = ["clones"]  # the fixture: a bare origin and two clones


def succeeded(node: str) -> NodeSucceeded:
    return NodeSucceeded(
        run_id="r", timestamp="2026-12-07T09:00:00Z", node_id=node, phase="apply", duration_ms=1
    )


def tip_of(origin: Path) -> str:
    return git(origin, "rev-parse", "averos-state")


def subject(origin: Path, rev: str = "averos-state") -> str:
    return git(origin, "log", "-1", "--format=%s", rev)


@pytest.fixture
def pusher(clones: tuple[Path, Path, Path], tmp_path: Path) -> ProgressPusher:
    """An apply of project ``mine`` in clone ``a`` whose claim landed; pushes after each node."""
    _, a, _ = clones
    sa = StateBranch(a)
    mine = write(tmp_path / "mine", {"apply.json": '{"claim": 1}\n'})
    claim = sa.commit(parent=None, subdir="mine", src=mine, message="mine: claim")
    assert sa.push(claim)
    writer = ProjectWriter(sa, "mine", mine, claim, Backoff(first=0, budget=5))
    return ProgressPusher(writer, 0, workspace_root=a / "generated", state_key=None)


def test_a_rejected_progress_push_is_left_to_the_next_push_not_retried(
    clones: tuple[Path, Path, Path], tmp_path: Path, pusher: ProgressPusher
) -> None:
    origin, _, b = clones
    mine = pusher.writer.src
    theirs = other_job(b, tmp_path, "other", '{"o": 1}')  # moves the branch under this job
    (mine / "checkpoints.json").write_text('{"done": ["n1"]}\n')
    pusher.on_event(succeeded("n1"))
    assert tip_of(origin) == theirs  # not re-applied and pushed again: the branch stays theirs
    assert pusher.pushed == 0 and pusher.writer.retries == 0
    # the next progress push starts from the tip the rejection fetched: it lands at once
    (mine / "checkpoints.json").write_text('{"done": ["n1", "n2"]}\n')
    pusher.on_event(succeeded("n2"))
    assert subject(origin) == "averos-ci: mine: progress: n2"
    assert git(origin, "rev-parse", "averos-state^") == theirs
    assert json.loads(git(origin, "show", "averos-state:mine/checkpoints.json")) == {
        "done": ["n1", "n2"]
    }
    assert pusher.pushed == 1 and pusher.writer.retries == 0


def test_after_a_rejected_progress_push_the_next_waits_the_back_off(
    clones: tuple[Path, Path, Path], tmp_path: Path, pusher: ProgressPusher
) -> None:
    origin, _, b = clones
    pusher.writer.backoff = Backoff(first=60, cap=60)  # the first wait: up to a minute
    mine = pusher.writer.src
    other_job(b, tmp_path, "other", '{"o": 1}')
    (mine / "checkpoints.json").write_text('{"done": ["n1"]}\n')
    pusher.on_event(succeeded("n1"))  # beaten: left to the next push
    theirs = other_job(b, tmp_path, "other", '{"o": 2}')
    for node in ("n2", "n3"):  # nodes that end while the branch is busy: no push tried
        pusher.on_event(succeeded(node))
    assert tip_of(origin) == theirs and pusher.left == 1 and pusher.pushed == 0
    pusher.flush("interrupted")  # a push that must land is never held back
    assert subject(origin) == "averos-ci: mine: interrupted"
    assert json.loads(git(origin, "show", "averos-state:mine/checkpoints.json")) == {"done": ["n1"]}


def test_a_flush_and_the_final_push_still_land_over_other_projects(
    clones: tuple[Path, Path, Path], tmp_path: Path, pusher: ProgressPusher
) -> None:
    origin, _, b = clones
    mine = pusher.writer.src
    other_job(b, tmp_path, "other", '{"o": 1}')
    (mine / "checkpoints.json").write_text('{"done": ["n1"]}\n')
    pusher.flush("interrupted")  # what a failed or stopped apply saves: it must land
    assert subject(origin) == "averos-ci: mine: interrupted"
    other_job(b, tmp_path, "other", '{"o": 2}')
    (mine / "checkpoints.json").unlink()
    (mine / "state.json").write_text('{"serial": 1}\n')
    pusher.writer.push("averos-ci: mine: applied")
    files = git(origin, "ls-tree", "-r", "--name-only", "averos-state").split()
    assert "mine/state.json" in files and "mine/checkpoints.json" not in files
    assert json.loads(git(origin, "show", "averos-state:other/state.json")) == {"o": 2}


def test_a_rejected_progress_push_still_stops_at_a_foreign_edit_of_this_project(
    clones: tuple[Path, Path, Path], tmp_path: Path, pusher: ProgressPusher
) -> None:
    origin, _, b = clones
    theirs = other_job(b, tmp_path, "mine", '{"abandoned": true}')  # e.g. `state abandon`
    with pytest.raises(ApplyRefused, match="changed by another job"):
        pusher.on_event(succeeded("n1"))
    assert tip_of(origin) == theirs


def test_after_a_claim_that_other_jobs_made_wait_progress_waits_the_back_off(
    clones: tuple[Path, Path, Path], tmp_path: Path, pusher: ProgressPusher
) -> None:
    origin, _, b = clones
    pusher.writer.backoff = Backoff(first=60, cap=60)
    theirs = tip_of(origin)
    pusher.busy(0)  # a claim that landed at once: the branch is not busy
    (pusher.writer.src / "checkpoints.json").write_text('{"done": ["n1"]}\n')
    pusher.on_event(succeeded("n1"))
    assert pusher.pushed == 1 and tip_of(origin) != theirs
    theirs = other_job(b, tmp_path, "other", '{"o": 1}')
    pusher.busy(3)  # re-applied three times: no progress push for the back-off of three
    for node in ("n2", "n3"):
        pusher.on_event(succeeded(node))
    assert tip_of(origin) == theirs and pusher.pushed == 1 and pusher.left == 0
    pusher.flush("interrupted")  # a push that must land is never held back
    assert subject(origin) == "averos-ci: mine: interrupted"
