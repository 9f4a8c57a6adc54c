"""The example workflows users copy: what they must contain (the linters check the rest)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML

from tests.github.gh_world import REPO_ROOT

EXAMPLES = REPO_ROOT / "examples" / "workflows"
WRAPPER = REPO_ROOT / "examples" / "actions" / "averos-ci" / "action.yml"
LOCAL_ACTION = "./.github/actions/averos-ci"  # the examples' one pin of averos-ci: WRAPPER
SHA_PIN = re.compile(r"^[\w.-]+/[\w.-]+(/[\w.-]+)*@[0-9a-f]{40}$")  # owner/repo[/path]@sha


def load(name: str) -> dict[str, Any]:
    data: dict[str, Any] = YAML(typ="safe", pure=True).load(
        (EXAMPLES / name).read_text(encoding="utf-8")
    )
    return data


def steps(workflow: dict[str, Any]) -> list[dict[str, Any]]:
    return [s for job in workflow["jobs"].values() for s in job["steps"]]


def test_third_party_actions_are_pinned_by_sha_and_ours_in_the_local_action() -> None:
    ours = 0
    for path in sorted(EXAMPLES.glob("*.yml")):
        for step in steps(load(path.name)):
            uses = step.get("uses")
            if uses is None:
                continue
            if uses.startswith("./"):
                assert uses == LOCAL_ACTION, (path.name, uses)
                ours += 1
            else:
                assert "averos-ci" not in uses and SHA_PIN.match(uses), (path.name, uses)
    assert ours == 17  # every averos-ci step of the seven workflows (the dashboard's and the
    # drift check's included)
    wrapper = YAML(typ="safe", pure=True).load(WRAPPER.read_text(encoding="utf-8"))
    (step,) = wrapper["runs"]["steps"]
    assert step["uses"] == "your-org/averos-ci@v0.1.0"  # a release tag, the one placeholder


def test_the_plan_runs_when_a_draft_becomes_ready() -> None:
    types = load("averos-plan.yml")["on"]["pull_request"]["types"]
    assert {"opened", "synchronize", "reopened", "ready_for_review"} <= set(types)


def test_the_apply_sets_up_node_caches_the_template_and_keeps_the_logs() -> None:
    apply = steps(load("averos-apply.yml"))
    uses = [s.get("uses", "").split("@")[0] for s in apply]
    node = apply[uses.index("actions/setup-node")]
    assert str(node["with"]["node-version"]) == "20"
    cache = apply[uses.index("actions/cache")]
    assert cache["with"]["path"] == "${{ env.AVEROS_CI_CACHE_DIR }}"
    assert "hashFiles(" in cache["with"]["key"] and cache["with"]["restore-keys"]
    exported = " ".join(str(s.get("run", "")) for s in apply[: uses.index("actions/cache")])
    assert "AVEROS_CI_CACHE_DIR=" in exported and "$GITHUB_ENV" in exported
    averos = uses.index(LOCAL_ACTION)
    assert uses.index("actions/setup-node") < averos and uses.index("actions/cache") < averos
    upload = apply[uses.index("actions/upload-artifact")]
    assert upload["if"].startswith("always()")
    assert "steps.averos.outputs.logs-path" in upload["with"]["path"]
    assert "steps.averos.outputs.junit-path" in upload["with"]["path"]


def test_the_action_exposes_the_logs_path() -> None:
    action = YAML(typ="safe", pure=True).load((REPO_ROOT / "action.yml").read_text("utf-8"))
    assert action["outputs"]["logs-path"]["value"] == "${{ steps.run.outputs.logs-path }}"


def test_the_docs_document_what_the_examples_rely_on() -> None:
    docs = REPO_ROOT / "docs"
    for page, needle in (
        ("how-to/protected-branches.md", "## Branch protection and tokens"),
        ("reference/github-action.md", "`logs-path`"),
        ("development.md", "## Releases"),
        ("reference/github-action.md", "@v0"),
    ):
        assert needle in (docs / page).read_text(encoding="utf-8"), (page, needle)
    assert Path(REPO_ROOT / ".github" / "workflows" / "release.yml").is_file()
