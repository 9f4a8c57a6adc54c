"""One state branch made by real applies, shared by the dashboard's tests (one xdist group):
the GitHub test world (tests/github) plans, approves, merges and applies PR #1 and PR #2 with
the mock adapter; then, as the product writes them, a claim whose progress is two days old
(stuck), a fresh claim (running), a drift record and a folder whose names are markup. PR #3's
apply fails at a node (the mock adapter's ``failNodes``): its claim and progress stay."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import pytest

from averos_ci.cli import run_cli
from averos_ci.state.drift import DriftReport
from averos_ci.statebranch import claim as claim_module
from averos_ci.statebranch.claim import CLAIM, RUNS, write_claim, write_json
from averos_ci.statebranch.drift_record import findings, save_record
from averos_ci.statebranch.landing import Backoff
from averos_ci.statebranch.state_branch import StateBranch
from tests.conftest import GIT_IDENTITY
from tests.github.gh_fake import running_fake
from tests.github.gh_steps import approve, merge_and_apply, open_pr_from_main
from tests.github.gh_world import World, git, make_world, manifest_variant

STUCK = "payments"
RUNNING = "search"
ABANDONED = "reports"  # claimed, then dropped by `averos-ci state abandon`: a failure
REASON = "the job died <twice>"
ATTACK = "<script>alert(1)</script>"  # a folder name: `<script>alert(1)<` / `script>`
ATTACK_APPROVER = "<img src=x onerror=alert(2)>"
OLD = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)


FAILING = "translation-entry:fr:extra.k2"  # a node PR #3 adds; its apply fails there


@dataclass(frozen=True)
class StateWorld:
    world: World
    merges: tuple[str, str]  # the merge commits of PR #1 and PR #2, as applied
    applied_tip: str  # the state branch after those two applies
    clone: Path  # a clone of origin with the state branch fetched (what the user has)


def _apply(world: World, number: int, user: str, *, code: int = 0) -> str:
    head = open_pr_from_main(world, number, manifest_variant(number))
    assert world.plan_workflow(number, head).plan.code == 0
    approve(world, number, user, head)
    r = merge_and_apply(world, f"change-{number}", number)
    assert r.code == code, r.stdout + r.stderr
    return world.branch_sha("main") or ""


def _failing_apply(world: World) -> None:
    """PR #3, whose apply fails at one node: the claim and its progress stay (a failure)."""
    world.adapter_options = {"failNodes": [FAILING]}
    world.write_config()
    git(world.dev, "checkout", "-q", "main")
    git(world.dev, "commit", "-q", "-am", "the mock adapter fails at one node")
    git(world.dev, "push", "-q", "origin", "main")
    _apply(world, 3, "bob", code=1)


def _commit(sb: StateBranch, files: dict[str, Path], message: str) -> None:
    tip = sb.fetch()
    assert tip is not None
    assert sb.push(sb.commit_paths(parent=tip, changes=dict(files), message=message))


def _write_extras(world: World, scratch: Path, mp: pytest.MonkeyPatch) -> None:
    """What the product writes, through its own writers: claims (statebranch.claim) and the
    drift record (averos_ci.statebranch.drift_record)."""
    sb = StateBranch(world.dev)
    sha = git(world.dev, "rev-parse", "HEAD")
    # an apply that claimed `payments` two days ago and never pushed progress again
    with mp.context() as old:
        stamp = OLD.isoformat(timespec="milliseconds").replace("+00:00", "Z")
        old.setattr(claim_module, "now_iso", lambda: stamp)
        old.setenv("GIT_COMMITTER_DATE", OLD.isoformat())
        write_claim(
            scratch / STUCK,
            None,
            plan_hash="a" * 64,
            sha=sha,
            pr=7,
            run_url="https://github.com/octo/app/actions/runs/700",
            run_id="700",
        )
        _commit(sb, {f"{STUCK}/{CLAIM}": scratch / STUCK / CLAIM}, f"averos-ci: {STUCK}: claim")
    write_claim(
        scratch / RUNNING,
        None,
        plan_hash="b" * 64,
        sha=sha,
        pr=8,
        run_url="https://github.com/octo/app/actions/runs/800",
        run_id="800",
    )
    write_claim(
        scratch / ABANDONED,
        None,
        plan_hash="d" * 64,
        sha=sha,
        pr=9,
        run_url="https://github.com/octo/app/actions/runs/900",
        run_id="900",
    )
    report = DriftReport(
        workspace_root=world.dev,
        state_path="default/state.json",
        checked=4,
        missing={"src/app/todo-task.ts": ("entity:ToDoTask",)},
        modified=("src/app/app.component.html",),
    )
    record = scratch / "attack.json"
    write_json(record, {"sha": sha, "planHash": "c" * 64, "approvedBy": ATTACK_APPROVER})
    _commit(
        sb,
        {
            f"{RUNNING}/{CLAIM}": scratch / RUNNING / CLAIM,
            f"{ABANDONED}/{CLAIM}": scratch / ABANDONED / CLAIM,
            f"{ATTACK}/{RUNS}/2026-12-01T000000.000Z-{sha[:12]}.json": record,
        },
        "averos-ci: running claim, a folder named as markup",
    )
    now = datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    found = findings(report)
    assert save_record(sb, "default", found, checked_at=now, commit=sha, run_url=None,
                       backoff=Backoff())  # fmt: skip
    with mp.context() as here:  # the operator's command, in their clone
        here.chdir(world.dev)
        args = ["state", "abandon", "--project", ABANDONED, "--reason", REASON]
        assert run_cli(args) == 0


@pytest.fixture(scope="session")
def state_world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StateWorld]:
    root = tmp_path_factory.mktemp("dashboard")
    home = root / "home"
    home.mkdir()
    with pytest.MonkeyPatch.context() as mp, running_fake() as fake:
        # a session fixture runs outside the autouse $HOME/identity fixture: set them here
        mp.setenv("HOME", str(home))
        mp.setenv("GIT_CONFIG_NOSYSTEM", "1")
        mp.setenv("GIT_CONFIG_GLOBAL", str(home / ".gitconfig-unused"))
        for name, value in GIT_IDENTITY.items():
            mp.setenv(name, value)
        for var in [v for v in os.environ if v.startswith("GITHUB_")]:
            mp.delenv(var)
        fake.roles.update(alice="write", bob="write", carol="write")
        world = make_world(root, fake)
        merges = (_apply(world, 1, "bob"), _apply(world, 2, "carol"))
        applied_tip = world.state_tip() or ""
        _failing_apply(world)
        _write_extras(world, root / "scratch", mp)
        clone = root / "clone"
        git(root, "clone", "-q", str(world.origin), str(clone))
        git(clone, "fetch", "-q", "origin", "averos-state:averos-state")
        yield StateWorld(world, merges, applied_tip, clone)
