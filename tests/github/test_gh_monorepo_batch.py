"""A batch matrix entry (``averos-ci projects`` above 256 changed projects): ``project`` the
names separated by spaces, ``config`` their configs one a line, handed whole to
``averos-ci github <command> --config``. Every command of the monorepo workflow runs once per
config: the plan job posts each project's comment and status, one approving review approves
both, the apply job lands both on the state branch, and with a regenerating adapter the patch
job writes one result per project (``averos-patch-<k>.json``) that the complete job reads
back. Jobs are separate processes on the fake GitHub API and a bare origin, mock adapter."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from averos_ci._token import KEY_VARS, TOKEN_VARS
from averos_ci.review.comment import COMPUTING, MARKER_RE
from tests.github.gh_fake import FakeGitHub
from tests.github.gh_monorepo import Monorepo, make_monorepo
from tests.github.gh_world import git

pytestmark = pytest.mark.slow

BATCH = "apps/p01 apps/p02"
GATE = "averos-ci/plan"


def comments_by_project(fake: FakeGitHub, number: int) -> dict[str, str]:
    found = {}
    for c in fake.bot_comments(number):
        match = MARKER_RE.match(str(c["body"]))
        if match:
            found[match.group(1)] = str(c["body"])
    return found


def land_batch(mono: Monorepo, number: int, branch: str, files: dict[str, str]) -> str:
    """PR ``number`` planned, approved (one approving review) and applied, each job one batch
    entry of both projects; returns the merge."""
    fake, world = mono.fake, mono.world
    head = mono.open_pr(number, branch, files)
    plan = mono.run("pull_request", world.pr_event("opened", number), head, BATCH, command="plan")
    assert plan.code == 0, plan.stdout[-600:] + plan.stderr[-1500:]
    assert set(comments_by_project(fake, number)) >= set(BATCH.split())
    for p in BATCH.split():
        status = fake.context_status(head, f"{GATE}/{p}")
        assert status is not None and status["state"] == "pending", (p, fake.statuses)

    review = fake.add_review(number, user="bob", state="APPROVED", commit_id=head)
    r = mono.run("pull_request_review", world.review_event(number, review), head, BATCH,
                 command="approve")  # fmt: skip
    assert r.code == 0, r.stdout[-600:] + r.stderr[-1500:]
    for p in BATCH.split():
        status = fake.context_status(head, f"{GATE}/{p}")
        assert status is not None and status["state"] == "success", (p, status)

    merge = mono.merge(number, branch)
    r = mono.run("push", world.push_event(merge), merge, BATCH, command="apply")
    assert r.code == 0, r.stdout[-600:] + r.stderr[-1500:]
    files = world.state_files()
    for p in BATCH.split():
        runs = [json.loads(t).get("sha") for f, t in files.items() if f.startswith(f"{p}/runs/")]
        assert merge in runs, (p, sorted(files))
    return merge


def test_a_batch_entry_runs_every_command_of_the_monorepo_workflow_for_each_of_its_projects(
    tmp_path: Path, fake: FakeGitHub
) -> None:
    """plan, approve and apply (PR #1 adds both projects), then plan, patch and complete
    (PR #2 changes both): one result file per project, and exit 5 for p01's conflict only
    once p02 is completed too."""
    mono = make_monorepo(tmp_path, fake, adapter_options={"writeFiles": True})
    world = mono.world
    land_batch(mono, 1, "add-two", {**mono.project_files(1), **mono.project_files(2)})
    # the apply committed both generated applications to main: PR #2 starts from there
    git(world.dev, "checkout", "-q", "main")
    git(world.dev, "pull", "-q", "--ff-only", "origin", "main")
    fake.base_sha = git(world.dev, "rev-parse", "HEAD")
    # p01: a member's type changes where the pull request also edits the generated line (its
    # code change collides: a conflict); p02 gains an entity (a clean code change)
    model = next(
        f
        for f in (world.dev / "apps/p01/generated").rglob("*.ts")
        if "title?: string;" in f.read_text(encoding="utf-8")
    )
    p1 = mono.project_files(1)["apps/p01/app.manifest.yaml"]
    files = {
        "apps/p01/app.manifest.yaml": p1.replace("memberType: string", "memberType: number"),
        model.relative_to(world.dev).as_posix(): model.read_text(encoding="utf-8").replace(
            "title?: string;", "title?: string; // mine"
        ),
        "apps/p02/app.manifest.yaml": mono.project_files(2, extra_entities=1)[
            "apps/p02/app.manifest.yaml"
        ],
    }
    head = mono.open_pr(2, "change-two", files)
    payload = world.pr_event("opened", 2)
    plan = mono.run("pull_request", payload, head, BATCH, command="plan")
    assert plan.code == 0 and plan.outputs.get("patch-needed") == "true", plan.stdout[:3000]
    assert all(COMPUTING in b for b in comments_by_project(fake, 2).values())

    # the patch job: no token, no state key; one result per project, the folder uploaded
    checkout, env, _ = mono.prepare("pull_request", payload, head, BATCH)
    for name in (*TOKEN_VARS, *KEY_VARS):
        env.pop(name, None)
    configs = "\n".join(f"{p}/averos.config.json" for p in BATCH.split())
    patch = world.job("patch", checkout, env, timeout=300, args=("--config", configs))
    assert patch.code == 0, patch.stdout[-600:] + patch.stderr[-1500:]
    folder = Path(env["RUNNER_TEMP"]) / "averos-ci-patch"
    assert patch.outputs["patch-path"] == str(folder)
    assert patch.outputs["patch-needed"] == "true"
    assert sorted(f.name for f in folder.iterdir()) == [
        "averos-patch-1.json",
        "averos-patch-2.json",
    ]
    written = {
        json.loads((folder / f"averos-patch-{k}.json").read_text(encoding="utf-8"))["project"]
        for k in (1, 2)
    }
    assert written == set(BATCH.split())

    # the complete job: the uploaded folder downloaded into its runner folder
    checkout, env, _ = mono.prepare("pull_request", payload, head, BATCH)
    shutil.copytree(folder, Path(env["RUNNER_TEMP"]) / "averos-ci-patch")
    done = world.job("complete", checkout, env, timeout=300, args=("--config", configs))
    # p01's conflict makes the job exit 5, once p02 is completed too
    assert done.code == 5, done.stdout[-600:] + done.stderr[-1500:]
    bodies = comments_by_project(fake, 2)
    assert all(COMPUTING not in b for b in bodies.values()), bodies
    assert "Conflicts" in bodies["apps/p01"] and "title?: string; // mine" in bodies["apps/p01"]
    assert "Code change" in bodies["apps/p02"] and "Conflicts" not in bodies["apps/p02"]
    p1_status = fake.context_status(head, f"{GATE}/apps/p01")
    p2_status = fake.context_status(head, f"{GATE}/apps/p02")
    assert p1_status is not None and p1_status["state"] == "failure", p1_status
    assert p2_status is not None and p2_status["state"] == "pending", p2_status
