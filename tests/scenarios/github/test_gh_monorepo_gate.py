"""Many projects, one gate, end to end on the fake GitHub API and a bare origin: a pull request
touching 3 projects gets 3 sticky comments, 3 project statuses and 1 aggregate status that
turns success only when all 3 plans are approved; after the merge and the applies, another
open pull request's plan of a moved project is outdated until ``/averos plan``; merge queue
groups pass only with an approved plan. Jobs run as separate processes, matrix-style."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from averos_ci.review.comment import PlanMeta, marker
from tests.github.gh_fake import BOT, FakeGitHub
from tests.github.gh_world import (
    CLI,
    EXAMPLE_DIR,
    JobResult,
    World,
    git,
    load_payload,
    make_world,
    manifest_variant,
)

pytestmark = pytest.mark.slow

PROJECTS = ("apps/p1", "apps/p2", "apps/p3")
GATE = "averos-ci/plan"


def config_of(project: str) -> str:
    return f"{project}/averos.config.json"


@pytest.fixture
def world(tmp_path: Path, fake: FakeGitHub) -> World:
    fake.roles.update(alice="write", bob="write", reader="read")
    w = make_world(tmp_path, fake)
    # A monorepo: no root project, three projects under apps/.
    git(w.dev, "rm", "-q", "averos.config.json", "todoapp.manifest.yaml")
    base = json.loads((EXAMPLE_DIR / "averos.mock.config.json").read_text(encoding="utf-8"))
    base["github"] = {
        "progressIntervalSeconds": 0,
        "apiMaxWaitSeconds": 5,
        "commitWorkspace": "none",
    }
    for project in PROJECTS:
        d = w.dev / project
        d.mkdir(parents=True)
        (d / "averos.config.json").write_text(json.dumps(base, indent=2) + "\n", encoding="utf-8")
        (d / "todoapp.manifest.yaml").write_text(manifest_variant(0), encoding="utf-8")
    git(w.dev, "add", "-A")
    git(w.dev, "commit", "-q", "-m", "monorepo")
    git(w.dev, "push", "-q", "origin", "main")
    fake.base_sha = git(w.dev, "rev-parse", "HEAD")
    return w


def start(
    world: World, event: str, payload: dict[str, Any], sha: str, command: str, config: str | None
) -> tuple[subprocess.Popen[str], dict[str, str]]:
    checkout = world.checkout(sha)
    env = world.job_env(event, payload, checkout, sha)
    args = [*CLI, "github", command, *(["--config", config] if config else [])]
    proc = subprocess.Popen(
        args, cwd=checkout, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    return proc, env


def finish(proc: subprocess.Popen[str], env: dict[str, str]) -> JobResult:
    out, err = proc.communicate(timeout=180)
    return World.result(proc.returncode, out, err, env)


def job(
    world: World,
    event: str,
    payload: dict[str, Any],
    sha: str,
    command: str,
    config: str | None = None,
) -> JobResult:
    return finish(*start(world, event, payload, sha, command, config))


def matrix(
    world: World, event: str, payload: dict[str, Any], sha: str, command: str
) -> list[JobResult]:
    """One job per project, started together (a matrix finishes in any order)."""
    procs = [start(world, event, payload, sha, command, config_of(p)) for p in PROJECTS]
    return [finish(*p) for p in procs]


def sticky(fake: FakeGitHub, number: int, project: str) -> dict[str, Any]:
    found = [c for c in fake.bot_comments(number) if str(c["body"]).startswith(marker(project))]
    assert len(found) == 1, [str(c["body"])[:60] for c in fake.bot_comments(number)]
    return found[0]


def meta_of(fake: FakeGitHub, number: int, project: str) -> PlanMeta:
    meta = PlanMeta.decode(str(sticky(fake, number, project)["body"]))
    assert meta is not None
    return meta


def state(fake: FakeGitHub, sha: str, context: str) -> str:
    status = fake.context_status(sha, context)
    assert status is not None, (context, [s.get("context") for s in fake.statuses])
    return str(status["state"])


def approve(world: World, number: int, project: str, main: str, user: str = "bob") -> JobResult:
    """One ``/averos approve`` comment; the approve matrix runs a job for every project (each
    from the default branch), only the pinned project's job acts on it."""
    meta = meta_of(world.fake, number, project)
    c = world.fake.add_comment(number, user=user, body=f"/averos approve {meta.plan_hash[:12]}")
    payload = world.comment_event(number, c)
    results = dict(
        zip(PROJECTS, matrix(world, "issue_comment", payload, main, "approve"), strict=True)
    )
    for p, r in results.items():
        assert r.code == 0, r.stdout + r.stderr
        if p != project:
            assert "ignored" in r.stdout and r.outputs.get("approved") != "true", r.stdout
    return results[project]


def test_three_projects_one_gate_outdated_and_merge_queue(world: World, fake: FakeGitHub) -> None:
    main = fake.base_sha
    # different changes per project: identical plans would share one planHash
    files = {f"{p}/todoapp.manifest.yaml": manifest_variant(i + 1) for i, p in enumerate(PROJECTS)}
    head1 = world.commit("feat1", files, "touch three projects")
    fake.add_pull(1, author="alice", head_sha=head1, head_ref="feat1")
    # a second PR, touching only p2, planned while #1 is open
    head2 = world.commit("feat2", {"apps/p2/todoapp.manifest.yaml": manifest_variant(5)}, "p2")
    fake.add_pull(2, author="alice", head_sha=head2, head_ref="feat2")

    # -- discovery gives the matrix the workflow fans out over
    out = subprocess.run(
        [
            *CLI,
            "projects",
            "--changed",
            "--base",
            main,
            "--head",
            head1,
            "--format",
            "github-matrix",
        ],
        cwd=world.dev,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert [i["project"] for i in json.loads(out)["include"]] == list(PROJECTS)

    # -- plan matrix: 3 sticky comments, 3 project statuses, 1 aggregate
    results = matrix(world, "pull_request", world.pr_event("opened", 1), head1, "plan")
    assert all(r.code == 0 for r in results), [r.stderr for r in results]
    gate = job(world, "pull_request", world.pr_event("opened", 1), head1, "gate")
    assert gate.code == 0, gate.stderr
    assert len([c for c in fake.bot_comments(1) if "averos-ci:plan" in c["body"]]) == 3
    for p in PROJECTS:
        assert meta_of(fake, 1, p).has_changes
        assert state(fake, head1, f"{GATE}/{p}") == "pending"
    contexts = {s["context"] for s in fake.statuses if s["sha"] == head1}
    assert contexts == {GATE, *(f"{GATE}/{p}" for p in PROJECTS)}
    assert state(fake, head1, GATE) == "pending"
    desc = fake.context_status(head1, GATE)["description"]  # type: ignore[index]
    assert all(p in desc for p in PROJECTS), desc
    r = job(
        world, "pull_request", world.pr_event("opened", 2), head2, "plan", config_of(PROJECTS[1])
    )
    assert r.code == 0, r.stderr
    assert state(fake, head2, GATE) == "pending"

    # -- approvals: the gate turns success only when all three are approved
    for i, p in enumerate(PROJECTS):
        r = approve(world, 1, p, main)
        assert r.code == 0 and r.outputs["approved"] == "true", r.stdout + r.stderr
        assert state(fake, head1, f"{GATE}/{p}") == "success"
        expected = "success" if i == len(PROJECTS) - 1 else "pending"
        assert state(fake, head1, GATE) == expected, fake.context_status(head1, GATE)
    assert "every plan approved" in fake.context_status(head1, GATE)["description"]  # type: ignore[index]

    # -- merge + the apply matrix; #2's plan of p2 is now outdated
    merge1 = world.merge("feat1")
    fake.merge(1, merge1)
    # the apply matrix: one process per project, started together against one state branch
    results = matrix(world, "push", world.push_event(merge1), merge1, "apply")
    assert all(r.code == 0 for r in results), [r.stdout + r.stderr for r in results]
    assert {f"{p}/state.json" for p in PROJECTS} <= set(world.state_files())
    body2 = str(sticky(fake, 2, PROJECTS[1])["body"])
    assert "**Outdated**" in body2 and "#1" in body2
    st = fake.context_status(head2, f"{GATE}/{PROJECTS[1]}")
    assert st is not None and (st["state"], st["description"]) == (
        "pending",
        "state moved; re-plan",
    )
    assert state(fake, head2, GATE) == "pending"
    old2 = meta_of(fake, 2, PROJECTS[1]).plan_hash
    # an outdated plan cannot be approved
    r = approve(world, 2, PROJECTS[1], merge1)
    assert r.outputs["approved"] == "false" and "outdated" in r.stdout, r.stdout + r.stderr
    assert state(fake, head2, GATE) == "pending"

    # -- /averos plan: a reader is refused, the author re-plans
    git(world.dev, "push", "-q", "origin", f"{head2}:refs/pull/2/head")  # as GitHub keeps it
    c = fake.add_comment(2, user="reader", body="/averos plan")
    r = job(
        world, "issue_comment", world.comment_event(2, c), merge1, "approve", config_of(PROJECTS[1])
    )
    assert r.code == 0 and "refused" in r.stdout, r.stdout + r.stderr
    assert any("not re-planned" in x["body"] for x in fake.bot_comments(2))
    assert "**Outdated**" in str(sticky(fake, 2, PROJECTS[1])["body"])
    c = fake.add_comment(2, user="alice", body="/averos plan")
    r = job(
        world, "issue_comment", world.comment_event(2, c), merge1, "approve", config_of(PROJECTS[1])
    )
    assert r.code == 0, r.stdout + r.stderr
    new2 = meta_of(fake, 2, PROJECTS[1])
    assert "**Outdated**" not in str(sticky(fake, 2, PROJECTS[1])["body"])
    assert new2.plan_hash != old2 and new2.head_sha == head2
    assert state(fake, head2, f"{GATE}/{PROJECTS[1]}") == "pending"
    assert (c["id"], "+1") in fake.reactions

    # -- merge queue: the group of #2 with its approved plan -> success
    main = merge1
    r = approve(world, 2, PROJECTS[1], main)
    assert r.outputs["approved"] == "true", r.stdout + r.stderr
    group = queue_group(world, 2, "feat2", main)
    payload = merge_group_event(world, group, 2)
    r = job(world, "merge_group", payload, group, "plan", config_of(PROJECTS[1]))
    assert r.code == 0, r.stdout + r.stderr
    assert state(fake, group, f"{GATE}/{PROJECTS[1]}") == "success"
    assert state(fake, group, GATE) == "success"
    assert "approved on #2 by bob" in fake.context_status(group, GATE)["description"]  # type: ignore[index]

    # -- an unapproved plan in the queue -> failure with the reason, the job fails
    head3 = world.commit(
        "feat3", {"apps/p3/todoapp.manifest.yaml": manifest_variant(6)}, "p3", base="main"
    )
    fake.add_pull(3, author="alice", head_sha=head3, head_ref="feat3")
    r = job(
        world, "pull_request", world.pr_event("opened", 3), head3, "plan", config_of(PROJECTS[2])
    )
    assert r.code == 0, r.stderr
    group3 = queue_group(world, 3, "feat3", main)
    r = job(
        world,
        "merge_group",
        merge_group_event(world, group3, 3),
        group3,
        "plan",
        config_of(PROJECTS[2]),
    )
    assert r.code == 1 and "not approved" in r.stderr, r.stdout + r.stderr
    st = fake.context_status(group3, GATE)
    assert st is not None and st["state"] == "failure"
    assert "#3 has no valid approval" in st["description"], st
    assert {c["user"]["login"] for c in fake.bot_comments(1)} == {BOT}
    # the approve matrix answered each approval once: no refusal from the other projects' jobs
    assert not [c for c in fake.bot_comments(1) if "not counted" in c["body"]]


def queue_group(world: World, number: int, branch: str, base: str) -> str:
    """The commit a merge queue builds: the base plus the PR, on gh-readonly-queue/…"""
    git(world.dev, "checkout", "-q", "--detach", base)
    git(
        world.dev,
        "merge",
        "-q",
        "--no-ff",
        "-X",
        "theirs",  # #2 extends the lines #1 added: its side, as after a rebase
        "-m",
        f"Merge pull request #{number} from Codertocat/{branch}",
        branch,
    )
    sha = git(world.dev, "rev-parse", "HEAD")
    git(world.dev, "push", "-q", "origin", f"{sha}:refs/heads/{queue_ref(number, sha)}")
    git(world.dev, "checkout", "-q", "main")
    return sha


def queue_ref(number: int, sha: str) -> str:
    return f"gh-readonly-queue/main/pr-{number}-{sha}"


def merge_group_event(world: World, sha: str, number: int) -> dict[str, Any]:
    """The real payload (octokit/webhooks), pointed at this group; it has no base_sha."""
    payload = load_payload("merge_group.checks_requested.json")
    payload["repository"]["full_name"] = world.fake.repo
    payload["merge_group"].update(head_sha=sha, head_ref=f"refs/heads/{queue_ref(number, sha)}")
    assert payload["merge_group"]["base_ref"] == "refs/heads/main"
    return payload


def test_the_gate_resolves_when_no_project_changed(world: World, fake: FakeGitHub) -> None:
    """The discover matrix is empty, no plan runs: the required status must still resolve."""
    head = world.commit("docs", {"README.md": "docs only\n"}, "docs")
    fake.add_pull(1, author="alice", head_sha=head, head_ref="docs")
    r = job(world, "pull_request", world.pr_event("opened", 1), head, "gate")
    assert r.code == 0, r.stdout + r.stderr
    st = fake.context_status(head, GATE)
    assert st is not None and (st["state"], st["description"]) == (
        "success",
        "no Averos project changed",
    )
    # a project the diff says changed but that has no status yet keeps the gate pending
    head2 = world.commit("docs", {"apps/p1/todoapp.manifest.yaml": manifest_variant(2)}, "p1")
    fake.push_head(1, head2)
    r = job(world, "pull_request", world.pr_event("synchronize", 1), head2, "gate")
    assert r.code == 0, r.stdout + r.stderr
    assert state(fake, head2, GATE) == "pending"
    assert "waiting for the plan" in fake.context_status(head2, GATE)["description"]  # type: ignore[index]
