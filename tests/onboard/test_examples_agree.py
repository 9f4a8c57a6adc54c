"""The example workflows agree with each other, with what each command needs
(averos_ci.onboard.workflow_rules, the table ``doctor`` checks against) and with the docs."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path
from typing import Any

from averos_ci.onboard.checklist import (
    APP_CLIENT_ID_SECRET,
    APP_KEY_SECRET,
    ENVIRONMENT,
    STATE_KEY_SECRET,
)
from averos_ci.onboard.pins import PLACEHOLDER_REPO, RELEASE_TAG
from averos_ci.onboard.workflow_rules import averos_steps, load_workflow, problems, triggers
from tests.conftest import REPO_ROOT

EXAMPLES = sorted((REPO_ROOT / "examples" / "workflows").glob("*.yml"))
PLACEHOLDERS = re.compile(r"your-org/averos-ci|<owner>/averos-ci")


def apply_jobs() -> list[tuple[Path, dict[str, Any], dict[str, Any]]]:
    found = []
    for path in EXAMPLES:
        workflow = load_workflow(path)
        assert workflow is not None, path
        for step, job in averos_steps(workflow, path.name):
            if step.command == "apply":
                found.append((path, workflow, job))
    return found


def test_every_example_gives_each_command_what_it_needs() -> None:
    assert len(EXAMPLES) == 7  # plan, approve, apply, fork comment, monorepo, dashboard, drift
    for path in EXAMPLES:
        assert problems(path, branch="main") == [], path.name


def test_every_apply_job_has_history_permissions_recovery_environment_and_key() -> None:
    jobs = apply_jobs()
    assert sorted({p.name for p, _, _ in jobs}) == ["averos-apply.yml", "averos-monorepo.yml"]
    for path, workflow, job in jobs:
        checkout = next(s for s in job["steps"] if s.get("uses", "").startswith("actions/checkout"))
        assert checkout["with"]["fetch-depth"] == 0, path.name
        for scope in ("contents", "pull-requests", "statuses"):
            assert job["permissions"][scope] == "write", (path.name, scope)
        assert {"push", "issue_comment", "workflow_dispatch"} <= triggers(workflow).keys()
        assert job["environment"] == ENVIRONMENT, path.name
        (averos,) = (s for s in job["steps"] if s.get("id") == "averos")
        assert averos["with"]["state-key"] == f"${{{{ secrets.{STATE_KEY_SECRET} }}}}"
        assert job["concurrency"]["cancel-in-progress"] is False


def test_the_rules_find_what_the_monorepo_example_used_to_miss(tmp_path: Path) -> None:
    text = (REPO_ROOT / "examples" / "workflows" / "averos-apply.yml").read_text("utf-8")
    for good, bad, needle in (
        ("fetch-depth: 0", "fetch-depth: 1", "fetch-depth: 0"),
        ("statuses: write # an approval", "statuses: read # an approval", "statuses: write"),
        ("  workflow_dispatch:\n", "  delete:\n", "workflow_dispatch"),
        ("environment: averos-apply", "environment: other", "environment: averos-apply"),
        ("secrets.AVEROS_STATE_KEY", "secrets.OTHER", "state-key"),
    ):
        broken = tmp_path / "apply.yml"
        broken.write_text(text.replace(good, bad, 1), encoding="utf-8")
        found = problems(broken, branch="main")
        assert any(needle in p for p in found), (bad, found)
    assert any("'push' does not run" in p for p in problems(broken, branch="trunk"))


def run_output(folder: str, names: list[str]) -> set[str]:
    """What a run leaves in ``examples/`` (git ignores it): README command 1 generates the
    example application in ``examples/<example>/workspace`` (its ``node_modules``: tens of
    thousands of files) and its state in ``.averos``. A ``shutil.copytree`` ignore."""
    example = Path(folder).parent.name == "examples"
    return {n for n in names if n in {".averos", "node_modules"} or (example and n == "workspace")}


def shipped_files(examples: Path) -> list[Path]:
    """The files of ``examples`` but run output."""
    found = []
    for folder, dirs, files in os.walk(examples):
        dirs[:] = sorted(set(dirs) - run_output(folder, dirs))
        found += [Path(folder, name) for name in sorted(files)]
    return found


def placeholder_lines(root: Path = REPO_ROOT) -> dict[str, list[str]]:
    """Every line naming the placeholder in what users read or copy: the README, the docs,
    the examples and the action (not the changelog, the tests, the code's constants, or what
    a run left in the examples)."""
    pages = [root / "README.md", root / "action.yml", *(root / "docs").rglob("*.md")]
    pages += shipped_files(root / "examples")
    found: dict[str, list[str]] = {}
    for page in pages:
        text = page.read_bytes().decode("utf-8", errors="replace")
        lines = [line.strip() for line in text.splitlines() if PLACEHOLDERS.search(line)]
        if lines:
            found[page.relative_to(root).as_posix()] = lines
    return found


def test_the_placeholder_is_named_in_three_documented_lines_only() -> None:
    """The local action's one pin, the pre-commit entry (pre-commit needs a URL) and the
    setup page that explains them: a new line naming the placeholder fails here."""
    found = placeholder_lines()
    assert sorted(found) == [
        "docs/how-to/pre-commit.md",
        "docs/how-to/setup.md",
        "examples/actions/averos-ci/action.yml",
    ], found
    assert all(len(lines) == 1 for lines in found.values()), found
    (pin,) = found["examples/actions/averos-ci/action.yml"]
    assert pin.startswith(f"uses: {PLACEHOLDER_REPO}@{RELEASE_TAG} "), pin  # a slot init fills
    assert "<owner>/averos-ci" not in str(found)
    for path in EXAMPLES:
        assert PLACEHOLDER_REPO not in path.read_text(encoding="utf-8"), path.name
    # The pre-commit snippet names the one slot and where it is explained.
    snippet = (REPO_ROOT / "docs" / "how-to" / "pre-commit.md").read_text(encoding="utf-8")
    (line,) = found["docs/how-to/pre-commit.md"]
    assert line.startswith("- repo: ") and "docs/how-to/setup.md" in line
    setup = (REPO_ROOT / "docs" / "how-to" / "setup.md").read_text(encoding="utf-8")
    assert "## The action's repository: the one placeholder" in setup
    assert f"rev: {RELEASE_TAG} " in snippet and "rev: v0 " not in snippet


def test_the_control_a_new_placeholder_line_is_counted(tmp_path: Path) -> None:
    """A copy of the repository's pages with the old per-step pin back in one workflow."""
    for name in ("README.md", "action.yml"):
        shutil.copy2(REPO_ROOT / name, tmp_path / name)
    for folder in ("docs", "examples"):
        shutil.copytree(REPO_ROOT / folder, tmp_path / folder, symlinks=True, ignore=run_output)
    assert placeholder_lines(tmp_path) == placeholder_lines()
    approve = tmp_path / "examples" / "workflows" / "averos-approve.yml"
    text = approve.read_text(encoding="utf-8")
    assert text.count("uses: ./.github/actions/averos-ci ") == 1
    approve.write_text(
        text.replace("uses: ./.github/actions/averos-ci ", f"uses: {PLACEHOLDER_REPO}@v0.1.0 "),
        encoding="utf-8",
    )
    assert "examples/workflows/averos-approve.yml" in placeholder_lines(tmp_path)
    # what a run leaves in an example (README command 1's app and state) is not shipped
    pin = f"uses: {PLACEHOLDER_REPO}@v0.1.0\n"
    for left in ("todoapp/workspace/src/pin.yml", "todoapp/.averos/pin.yml"):
        (tmp_path / "examples" / left).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "examples" / left).write_text(pin, encoding="utf-8")
    deeper = tmp_path / "examples" / "todoapp" / "docs" / "workspace"  # not an example's app
    deeper.mkdir(parents=True)
    (deeper / "pin.yml").write_text(pin, encoding="utf-8")
    assert [p for p in placeholder_lines(tmp_path) if "pin.yml" in p] == [
        "examples/todoapp/docs/workspace/pin.yml"
    ]


def test_documented_action_inputs_list_every_command_of_action_yml() -> None:
    page = (REPO_ROOT / "docs" / "reference" / "github-action.md").read_text(encoding="utf-8")
    row = next(line for line in page.splitlines() if line.startswith("| `command` |"))
    for command in ("plan", "approve", "apply", "gate", "auto"):
        assert f"`{command}`" in row, command


def test_the_apply_example_pushes_the_generated_commit_with_the_app_token() -> None:
    workflow = load_workflow(REPO_ROOT / "examples" / "workflows" / "averos-apply.yml")
    assert workflow is not None
    (job,) = workflow["jobs"].values()
    steps = job["steps"]
    (app,) = (s for s in steps if s.get("uses", "").startswith("actions/create-github-app-token"))
    (averos,) = (s for s in steps if s.get("id") == "averos")
    assert steps.index(app) < steps.index(averos)
    assert job["env"][APP_CLIENT_ID_SECRET] == f"${{{{ secrets.{APP_CLIENT_ID_SECRET} }}}}"
    assert app["if"] == f"env.{APP_CLIENT_ID_SECRET} != ''"  # no App configured: skipped
    assert app["with"]["client-id"] == f"${{{{ env.{APP_CLIENT_ID_SECRET} }}}}"
    assert app["with"]["private-key"] == f"${{{{ secrets.{APP_KEY_SECRET} }}}}"
    assert app["with"]["permission-contents"] == "write"  # nothing more
    assert [k for k in app["with"] if k.startswith("permission-")] == ["permission-contents"]
    assert averos["with"]["push-token"] == f"${{{{ steps.{app['id']}.outputs.token }}}}"
    assert "github-token" not in averos["with"]  # comments, statuses, state: GITHUB_TOKEN
    docs = (REPO_ROOT / "docs" / "how-to" / "protected-branches.md").read_text("utf-8")
    assert APP_CLIENT_ID_SECRET in docs and APP_KEY_SECRET in docs


def test_the_patch_job_is_refused_any_write_permission(tmp_path: Path) -> None:
    """The patch job runs the pull request's generator: a write scope there is a finding."""
    text = (REPO_ROOT / "examples" / "workflows" / "averos-plan.yml").read_text("utf-8")
    granted = "    permissions:\n      contents: read\n    steps:"
    assert text.count(granted) == 1, "the patch job's permissions block moved"
    broken = tmp_path / "plan.yml"
    broken.write_text(
        text.replace(granted, granted.replace("read\n", "read\n      pull-requests: write\n")),
        encoding="utf-8",
    )
    assert problems(REPO_ROOT / "examples" / "workflows" / "averos-plan.yml", branch="main") == []
    found = problems(broken, branch="main")
    assert any("grant no 'write' permission (has pull-requests)" in p for p in found), found
