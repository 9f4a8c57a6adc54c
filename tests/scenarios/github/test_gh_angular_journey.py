"""The real application evolves across merges, on the default settings: fake GitHub API, a
bare origin and the real ``angular-schematics`` adapter (no ``adapter`` key in the config).

PR 1 creates the app, PR 2 adds a member, PR 3 adds a translation; each is planned,
approved and merged, and after each apply the default branch holds the generated app. The
template cache makes bootstrap a copy and gives later checkouts (no node_modules) theirs.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.github.gh_fake import FakeGitHub
from tests.github.gh_steps import open_pr_from_main
from tests.github.gh_world import EXAMPLE_DIR, JobResult, World, git, make_world

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
    """v1 the example; v2 + member ToDoTask.priority; v3 + a French translation."""
    full = (DATA / "todoapp.v2.manifest.yaml").read_text(encoding="utf-8")
    translation = (
        "      - { localeID: todotask.priority, localeValue: Priorité, targetEntity: ToDoTask }\n"
    )
    use_case = "  - name: CreateToDoArea\n    ename: ToDoArea\n    useCaseType: Create_Entity\n"
    assert translation in full and use_case in full
    v3 = full.replace(use_case, "")
    v2 = v3.replace(translation, "")
    return [(EXAMPLE_DIR / "todoapp.manifest.yaml").read_text(encoding="utf-8"), v2, v3]


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


def plan(world: World, number: int, head: str) -> JobResult:
    r = world.run("pull_request", world.pr_event("opened", number), head, timeout=300)
    assert r.code == 0, r.stdout + r.stderr
    return r


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


def test_three_merges_build_the_real_application_on_the_default_branch(
    tmp_path: Path, fake: FakeGitHub, angular_template: Path, angular_env: Path
) -> None:
    world = averos_world(tmp_path, fake)
    v1, v2, v3 = manifests()
    runs: list[dict[str, Any]] = []
    for number, manifest in enumerate((v1, v2, v3), start=1):
        head = open_pr(world, fake, number, manifest)
        plan(world, number, head)
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
        runs.append(json.loads(r.outputs.get("succeeded", "0")))
    # each apply regenerates its manifest from nothing (a clean generation) and merges it
    assert all(r > 20 for r in runs), runs
    # the last commit holds all three changes and compiles
    job = world.checkout(main_tip(world))
    ws = job / "workspace"
    model = next(ws.rglob("to-do-task*.ts"), None)
    assert model is not None
    assert any("priority" in p.read_text(encoding="utf-8") for p in ws.rglob("*.ts")
               if "node_modules" not in p.parts)  # fmt: skip
    assert "Priorité" in "".join(
        p.read_text(encoding="utf-8") for p in (ws / "src").rglob("fr*.json")
    )
    (ws / "node_modules").symlink_to(angular_template / "node_modules", target_is_directory=True)
    build = subprocess.run(
        ["npx", "ng", "build", "--configuration", "development"],
        cwd=ws,
        capture_output=True,
        text=True,
        timeout=900,
        env={
            **os.environ,
            "NG_CLI_ANALYTICS": "false",
            "npm_config_cache": str(angular_env / "npm"),
        },
    )
    assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-3000:]


def test_protected_default_branch_gets_a_pull_request_and_drift_until_merged(
    tmp_path: Path, fake: FakeGitHub, angular_template: Path, angular_env: Path
) -> None:
    world = averos_world(tmp_path, fake, protected=True)
    v1, v2, _ = manifests()
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
    r = plan(world, 2, head2)
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
