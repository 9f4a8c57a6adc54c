"""The real application evolves across merges, on the default settings: fake GitHub API, a
bare origin and the real ``angular-schematics`` adapter (no ``adapter`` key in the config).

PR 1 creates the app, PR 2 adds a member, PR 3 adds a translation, PR 4 removes the
entity ToDoArea (with its service configuration, use case and translations) and PR 5 changes
the member ToDoTask.taskId from string to number; each is planned, approved and merged, and
after each apply the default branch holds the generated app. Each plan runs the plan
workflow's three jobs (plan, patch without a token, complete): from PR 2 on the plan is first
posted pending while the code change is computed, then completed with it. The template cache
makes bootstrap a copy and gives later checkouts (no node_modules) theirs.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from averos_ci.review.comment import COMPUTING, PlanMeta
from tests.github.gh_fake import FakeGitHub
from tests.github.gh_steps import open_pr_from_main
from tests.github.gh_world import EXAMPLE_DIR, JobResult, PlanWorkflow, World, git, make_world
from tests.scenarios.angular.applied import ng_build

pytestmark = [pytest.mark.angular, pytest.mark.slow]

DATA = Path(__file__).resolve().parents[1] / "angular" / "data"
PROJECT = "default"
PROTECTED_HOOK = """#!/bin/sh
# Stands in for GitHub branch protection: main takes no direct push from the bot.
while read old new ref; do
  if [ "$ref" = "refs/heads/main" ] && git log -1 --format=%s "$new" | grep -q "^averos-ci:"; then
    echo "error: GH006: Protected branch update failed for refs/heads/main." >&2
    exit 1
  fi
done
exit 0
"""


def manifests() -> list[str]:
    """v1 the example; v2 + member ToDoTask.priority; v3 + a French translation; v4 - the
    entity ToDoArea and all that names it; v5 ToDoTask.taskId string -> number."""
    full = (DATA / "todoapp.v2.manifest.yaml").read_text(encoding="utf-8")
    translation = (
        "      - { localeID: todotask.priority, localeValue: Priorité, targetEntity: ToDoTask }\n"
    )
    use_case = "  - name: CreateToDoArea\n    ename: ToDoArea\n    useCaseType: Create_Entity\n"
    assert translation in full and use_case in full
    v3 = full.replace(use_case, "")
    v2 = v3.replace(translation, "")
    v4 = without_area(v3)
    task_id = "        mname: taskId\n        memberType: string\n"
    assert v4.count(task_id) == 1
    v5 = v4.replace(task_id, task_id.replace("string", "number"))
    return [(EXAMPLE_DIR / "todoapp.manifest.yaml").read_text(encoding="utf-8"), v2, v3, v4, v5]


def without_area(text: str) -> str:
    """``text`` without the entity ToDoArea, its service configuration, its CRUD use case and
    its translation entries (the manifest stays valid: nothing else refers to it)."""
    entity = re.search(r"  - name: ToDoArea\n(?:      .*\n|    .*\n)+\n", text)
    service = re.search(
        r"  - type: service\n    name: ToDoAreaServiceConfiguration\n(?:    .*\n)+?(?=  - )", text
    )
    crud = "  - name: ToDoAreaCRUD\n    ename: ToDoArea\n    useCaseType: CRUD\n"
    assert entity and service and crud in text
    text = text.replace(entity[0], "").replace(service[0], "").replace(crud, "")
    text = "".join(
        line for line in text.splitlines(keepends=True) if "targetEntity: ToDoArea }" not in line
    )
    assert "ToDoArea" not in text.split("\n", 2)[2], "only the header comment names it"
    return text


def averos_world(tmp_path: Path, fake: FakeGitHub, *, protected: bool = False) -> World:
    fake.roles.update(alice="write", bob="write")
    world = make_world(tmp_path, fake)
    config = json.loads((world.dev / "averos.config.json").read_text(encoding="utf-8"))
    del config["adapter"]  # the default: angular-schematics
    config["adapterOptions"] = {"templateCache": True}
    files = {
        "averos.config.json": json.dumps(config, indent=2) + "\n",
        ".gitignore": ".averos/\nnode_modules/\n",
    }
    for rel, text in files.items():
        (world.dev / rel).write_text(text, encoding="utf-8")
    (world.dev / "todoapp.manifest.yaml").unlink()  # PR 1 adds it
    git(world.dev, "add", "-A")
    git(world.dev, "commit", "-q", "-m", "real adapter")
    git(world.dev, "push", "-q", "origin", "main")
    fake.base_sha = git(world.dev, "rev-parse", "HEAD")
    if protected:
        hook = world.origin / "hooks" / "pre-receive"
        hook.write_text(PROTECTED_HOOK, encoding="utf-8")
        hook.chmod(0o755)
    return world


def main_tip(world: World) -> str:
    return git(world.origin, "rev-parse", "refs/heads/main")


def state(world: World) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(world.state_files()[f"{PROJECT}/state.json"])
    return data


def open_pr(world: World, fake: FakeGitHub, number: int, manifest: str) -> str:
    return open_pr_from_main(world, number, manifest)  # fake: world.fake


def plan(world: World, number: int, head: str) -> tuple[PlanWorkflow, str | None]:
    """The plan workflow on PR ``number``; every job that ran exited 0. Returns it and the
    plan comment as the ``plan`` job left it, read between the jobs (``None`` when no code
    change was needed: no ``patch``/``complete`` job)."""
    pending: list[str] = []
    wf = world.plan_workflow(
        number,
        head,
        timeout=300,
        artifact=lambda _uploaded: pending.append(plan_comment(world.fake, number)),
    )
    for job in (wf.plan, wf.patch, wf.complete):
        if job is not None:
            assert job.code == 0, job.stdout + job.stderr
    if wf.complete is None:
        return wf, None
    (before,) = pending
    # the plan job posted the semantic plan at once, not approvable before its code change
    assert COMPUTING in before and "/averos approve" not in before, before[:3000]
    after = plan_comment(world.fake, number)
    assert COMPUTING not in after, after[:3000]
    return wf, before


def approve_merge_apply(world: World, fake: FakeGitHub, number: int, head: str) -> JobResult:
    c = fake.add_comment(number, user="bob", body=world.approve_command(number))
    r = world.run("issue_comment", world.comment_event(number, c), head)
    assert r.code == 0 and r.outputs["approved"] == "true", r.stdout + r.stderr
    sha = world.merge(f"change-{number}")
    fake.merge(number, sha)
    return world.run("push", world.push_event(sha), sha, timeout=1200)


def result_comment(fake: FakeGitHub, number: int) -> str:
    found = [
        str(c["body"]) for c in fake.bot_comments(number) if "averos-ci:result" in str(c["body"])
    ]
    return found[-1] if found else ""


def tree(world: World, ref: str, path: str = "workspace") -> list[str]:
    out = git(world.origin, "ls-tree", "-r", "--name-only", ref, "--", path)
    return out.splitlines()


def plan_comment(fake: FakeGitHub, number: int) -> str:
    return next(
        str(c["body"]) for c in fake.bot_comments(number) if "averos-ci:plan" in str(c["body"])
    )


def merge_one(world: World, fake: FakeGitHub, number: int, manifest: str) -> tuple[str, JobResult]:
    """PR ``number`` sets the manifest to ``manifest``: planned (pending then completed with
    its code change, from PR 2 on: there is an applied workspace to merge into), approved,
    merged, applied. Returns the completed plan comment and the apply job."""
    head = open_pr(world, fake, number, manifest)
    wf, pending = plan(world, number, head)
    assert (pending is not None) == (number > 1), wf.plan.stdout + wf.plan.stderr
    body = plan_comment(fake, number)
    assert world.approve_command(number) in body, body[:3000]  # the full plan's, to copy
    r = approve_merge_apply(world, fake, number, head)
    assert r.code == 0, r.stdout + r.stderr
    assert "mock adapter" not in r.stdout
    tip = main_tip(world)
    subject = git(world.origin, "log", "-1", "--format=%s", tip)
    assert subject.startswith("averos-ci: generated workspace") and "[skip ci]" in subject
    st = state(world)
    assert st["formatVersion"] == 4 and st["adapter"]["name"] == "angular-schematics"
    assert st["workspace"]["commit"] == tip and st["workspace"]["pullRequest"] is None
    files = tree(world, tip)
    assert "workspace/angular.json" in files
    assert not any(  # installed packages, build output, the adapter's scratch files
        {"node_modules", ".angular", "dist", ".averos-ci"} & set(f.split("/")) for f in files
    )
    assert "Generated files committed to `main`" in result_comment(fake, number)
    assert_records_name_the_approved_hash(world, fake, number, body, r, subject)
    return body, r


def assert_records_name_the_approved_hash(
    world: World, fake: FakeGitHub, number: int, body: str, r: JobResult, subject: str
) -> None:
    """Everything the apply records names the planHash bob approved: from PR 2 on the full
    one (its code change included), never the semantic one (issue 37, item 8)."""
    meta = PlanMeta.decode(body)
    assert meta is not None
    full, semantic = meta.plan_hash, meta.semantic_hash
    assert (semantic is not None and semantic != full) == (number > 1), (full, semantic)
    others = [semantic[:12]] if semantic and semantic != full else []
    assert r.outputs["plan-hash"] == full
    assert f"plan {full[:12]}" in subject and not [h for h in others if h in subject]
    applied = result_comment(fake, number)
    assert f"Applied plan `{full[:12]}`" in applied and not [h for h in others if h in applied]
    log = git(world.origin, "log", "--format=%s", "averos-state")
    assert f"applied {full[:12]}" in log and f"claim apply of {full[:12]}" in log
    assert not [h for h in others if h in log]
    runs = [
        json.loads(text)["planHash"]
        for path, text in world.state_files().items()
        if path.startswith(f"{PROJECT}/runs/")
    ]
    assert full in runs and not [h for h in others if h in runs], runs


def changed_files(world: World, before: str, after: str) -> dict[str, set[str]]:
    """``git diff --name-status`` of the workspace between two commits, by status letter."""
    out = git(
        world.origin, "diff", "--name-status", "--no-renames", before, after, "--", "workspace"
    )
    changes: dict[str, set[str]] = {}
    for line in out.splitlines():
        status, path = line.split("\t", 1)
        changes.setdefault(status, set()).add(path.removeprefix("workspace/"))
    return changes


def counts(body: str) -> dict[str, int]:
    """The plan comment's counts table: create, update, unchanged, conflicts, removals."""
    lines = body.splitlines()
    i = next(n for n, line in enumerate(lines) if line.startswith("| create | update |"))
    names = [c.strip() for c in lines[i].strip("|").split("|")]
    return dict(zip(names, (int(c) for c in lines[i + 2].strip("|").split("|")), strict=True))


MODEL = "src/app/model/to-do-task.ts"
VIEW_LAYOUT = "src/assets/viewlayout/todotaskVL.json"  # the forms' and the list's fields
AREA = re.compile(rb"to-?do-?area", re.IGNORECASE)  # ToDoArea, todoarea.title, to-do-area


def test_five_merges_build_the_real_application_on_the_default_branch(
    tmp_path: Path, fake: FakeGitHub, angular_template: Path, angular_env: Path
) -> None:
    world = averos_world(tmp_path, fake)
    v1, v2, v3, v4, v5 = manifests()
    runs = [
        int(merge_one(world, fake, number, m)[1].outputs.get("succeeded", "0"))
        for number, m in enumerate((v1, v2, v3), 1)
    ]
    # each apply regenerates its manifest from nothing (a clean generation) and merges it
    assert all(r > 20 for r in runs), runs

    # PR 4 removes ToDoArea: the plan shows the destruction, the apply deletes its code
    before = main_tip(world)
    assert any(AREA.search(p.encode()) for p in tree(world, before, "workspace/src"))
    body, r = merge_one(world, fake, 4, v4)
    assert "**Destroyed or replaced on apply**" in body, body[:3000]
    for removed in (
        "entity:ToDoArea",
        "service-config:ToDoAreaServiceConfiguration",
        "use-case:ToDoAreaCRUD",
        "translation-entry:fr:todoarea.title",
    ):
        assert f"- `-` {removed}  (destroy" in body, body[:3000]
    assert counts(body)["conflicts"] == 0 and counts(body)["removals"] == 9, body[:600]
    # the code change: in the plan comment before the approval, and in the apply's log
    assert "`src/app/model/to-do-area.ts` (deleted, +0 -" in body, body[:6000]
    assert "- src/app/model/to-do-area.ts (deleted, +0 -" in r.stdout, r.stdout[-3000:]
    after = main_tip(world)
    changes = changed_files(world, before, after)
    assert "src/app/model/to-do-area.ts" in changes.get("D", set()), changes
    assert not changes.get("A"), changes  # a removal creates nothing
    src = tree(world, after, "workspace/src")
    assert [p for p in src if AREA.search(p.encode())] == []  # no file names it
    mentions = [
        p
        for p in src
        if AREA.search(git_bytes(world, f"{after}:{p}"))  # no route, menu, translation key
    ]
    assert mentions == [], mentions

    # PR 5 changes ToDoTask.taskId from string to number: a replacement, applied
    before = after
    body, r = merge_one(world, fake, 5, v5)
    replaced = "- `-/+` simple-field:ToDoTask:taskId  (forces replacement: memberType"
    assert replaced in body, body[:3000]
    assert counts(body)["conflicts"] == 0, body[:600]
    assert f"`{MODEL}` (changed, +1 -1" in body, body[:6000]
    assert f"`{VIEW_LAYOUT}` (changed, +" in body, body[:6000]
    assert f"~ {MODEL} (changed, +1 -1)" in r.stdout, r.stdout[-3000:]
    assert f"~ {VIEW_LAYOUT} (changed," in r.stdout, r.stdout[-3000:]
    after = main_tip(world)
    assert changed_files(world, before, after) == {"M": {MODEL, VIEW_LAYOUT}}
    model = git_bytes(world, f"{after}:workspace/{MODEL}").decode()
    assert "    taskId!: number;" in model and "taskId!: string" not in model, model
    layout = json.loads(git_bytes(world, f"{after}:workspace/{VIEW_LAYOUT}"))
    for view in ("createUCViewLayout", "editUCViewLayout", "viewUCViewLayout", "tableUCViewLayout"):
        (field,) = [f for f in layout[view]["ucViewLayout"] if f["entityFieldName"] == "taskId"]
        assert field["type"] == "number", (view, field)  # the forms and the list

    # the last commit holds all five changes and compiles
    job = world.checkout(main_tip(world))
    ws = job / "workspace"
    assert "    priority!: number;" in (ws / MODEL).read_text(encoding="utf-8")
    assert "Priorité" in "".join(
        p.read_text(encoding="utf-8") for p in (ws / "src").rglob("fr*.json")
    )
    (ws / "node_modules").symlink_to(angular_template / "node_modules", target_is_directory=True)
    ng_build(ws, angular_env)


def git_bytes(world: World, spec: str) -> bytes:
    """The bytes of ``<commit>:<path>`` in origin (generated files are not all text)."""
    return subprocess.run(
        ["git", "show", spec], cwd=world.origin, check=True, capture_output=True
    ).stdout


def test_protected_default_branch_gets_a_pull_request_and_drift_until_merged(
    tmp_path: Path, fake: FakeGitHub, angular_template: Path, angular_env: Path
) -> None:
    world = averos_world(tmp_path, fake, protected=True)
    v1, v2, *_ = manifests()
    head = open_pr(world, fake, 1, v1)
    plan(world, 1, head)
    r = approve_merge_apply(world, fake, 1, head)
    assert r.code == 0, r.stdout + r.stderr
    assert main_tip(world) == fake.pulls[1]["merge_commit_sha"]  # nothing pushed to main
    assert fake.created_pulls, "a pull request with the generated files was opened"
    number = fake.created_pulls[0]
    pr = fake.pulls[number]
    assert pr["head"]["ref"].startswith("averos/apply-") and pr["base"]["ref"] == "main"
    assert pr["head"]["ref"] == "averos/apply-" + r.outputs["plan-hash"][:12]
    assert "workspace/angular.json" in tree(world, pr["head"]["sha"])
    assert f"pull request [#{number}]" in result_comment(fake, 1)
    st = state(world)
    assert st["workspace"]["pullRequest"]["number"] == number
    assert st["workspace"]["pullRequest"]["commit"] == pr["head"]["sha"]

    # the next plan reports the drift: the app waits in the unmerged pull request
    head2 = open_pr(world, fake, 2, v2)
    plan(world, 2, head2)
    body = next(str(c["body"]) for c in fake.bot_comments(2) if "averos-ci:plan" in str(c["body"]))
    assert "Drift" in body and f"#{number}" in body
    assert fake.latest_status(head2)["state"] == "failure"  # type: ignore[index]

    # merged: the drift is gone and the next plan (a fresh PR on the new main) builds on it
    fake.merge(number, merge_generated(world, pr["head"]["sha"]))
    head3 = open_pr(world, fake, number + 1, v2)
    plan(world, number + 1, head3)
    body = next(
        str(c["body"]) for c in fake.bot_comments(number + 1) if "averos-ci:plan" in str(c["body"])
    )
    assert "Drift" not in body and "| 1 | 0 |" in body, body[:1500]
    assert fake.latest_status(head3)["state"] == "pending"  # type: ignore[index]


def merge_generated(world: World, commit: str) -> str:
    """Merge the generated-files branch into main as GitHub's merge button would."""
    tmp = world.root / "merger"
    if not tmp.exists():
        git(world.root, "clone", "-q", str(world.origin), str(tmp))
    git(tmp, "fetch", "-q", "origin")
    git(tmp, "checkout", "-q", "-B", "main", "origin/main")
    git(tmp, "merge", "-q", "--no-ff", "-m", "Merge pull request (generated files)", commit)
    git(tmp, "push", "-q", "origin", "main")
    return git(tmp, "rev-parse", "HEAD")
