"""The step outputs of a batch matrix entry describe the whole batch, not its last project.

Three projects in one entry (``--config`` three lines), each job a separate process on the
fake GitHub API and a bare origin, mock adapter: ``apps/p01`` and ``apps/p02`` are added
(``p02`` fails a node at apply), ``apps/p03`` was applied before and its manifest gains only a
comment (no changes). The last project is the one that changes nothing and fails nothing, so
its outputs alone would tell the workflow the opposite of the batch's: nothing to approve,
approved, applied."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from averos_ci.github.batch.outputs import RULES, parse_outputs
from tests.github.gh_fake import FakeGitHub
from tests.github.gh_monorepo import Monorepo, make_monorepo
from tests.github.gh_world import REPO_ROOT, JobResult, git

pytestmark = pytest.mark.slow

BATCH = ("apps/p01", "apps/p02", "apps/p03")
FAILING = "entity:Task2"  # resilient mode: its member is skipped, the rest runs


def run_batch(
    mono: Monorepo, event: str, payload: dict[str, Any], sha: str, command: str
) -> tuple[JobResult, dict[str, str]]:
    """One batch job; its exit code and the outputs the runner would read from
    $GITHUB_OUTPUT (heredoc values too; a later value of a name replaces an earlier one)."""
    checkout, env, _ = mono.prepare(event, payload, sha, " ".join(BATCH))
    configs = "\n".join(f"{p}/averos.config.json" for p in BATCH)
    job = mono.world.job(command, checkout, env, timeout=300, args=("--config", configs))
    outputs = parse_outputs(Path(env["GITHUB_OUTPUT"]).read_text(encoding="utf-8"))
    return job, outputs


def junit_counts(path: Path) -> tuple[int, int, int]:
    """(succeeded, failed, skipped) test cases of a JUnit XML report."""
    cases = list(ET.parse(path).getroot().iter("testcase"))
    failed = sum(1 for c in cases if c.find("failure") is not None or c.find("error") is not None)
    skipped = sum(1 for c in cases if c.find("skipped") is not None)
    return len(cases) - failed - skipped, failed, skipped


def test_a_batch_reports_any_change_all_approvals_all_successes_summed_counts_and_every_path(
    tmp_path: Path, fake: FakeGitHub
) -> None:
    mono = make_monorepo(tmp_path, fake)
    world = mono.world
    # p03 applied first, alone: in the batch it has no changes (only a comment is added)
    mono.open_pr(1, "add-p03", mono.project_files(3))
    mono.applied(1, "add-p03", ["apps/p03"])
    git(world.dev, "pull", "-q", "--ff-only", "origin", "main")  # what the apply committed
    fake.base_sha = git(world.dev, "rev-parse", "HEAD")

    files = {**mono.project_files(1), **mono.project_files(2)}
    p02 = json.loads(files["apps/p02/averos.config.json"])
    p02["adapterOptions"]["failNodes"] = [FAILING]
    p02["mode"] = "resilient"
    files["apps/p02/averos.config.json"] = json.dumps(p02, indent=2) + "\n"
    p03 = mono.project_files(3)["apps/p03/app.manifest.yaml"]
    files["apps/p03/app.manifest.yaml"] = "# owned by the platform team\n" + p03
    head = mono.open_pr(2, "batch", files)

    # plan: two projects change and wait for approval, the last changes nothing
    plan, out = run_batch(mono, "pull_request", world.pr_event("opened", 2), head, "plan")
    assert plan.code == 0, plan.stdout[-600:] + plan.stderr[-1500:]
    assert out["has-changes"] == "true", out  # the last project's: false
    assert out["approved"] == "false", out  # the last project's: true
    assert out["patch-needed"] == "false", out
    assert out["plan-hash"].split("\n") == [mono.plan_hash(2, p) for p in BATCH], out

    # approve: one approving review approves both projects that wait for it
    review = fake.add_review(2, user="bob", state="APPROVED", commit_id=head)
    approve, out = run_batch(
        mono, "pull_request_review", world.review_event(2, review), head, "approve"
    )
    assert approve.code == 0, approve.stdout[-600:] + approve.stderr[-1500:]
    for p in BATCH[:2]:
        status = fake.context_status(head, f"averos-ci/plan/{p}")
        assert status is not None and status["state"] == "success", (p, status)

    # apply: p01 succeeds, p02 fails a node (its dependents skipped), p03 has nothing to do
    merge = mono.merge(2, "batch")
    apply, out = run_batch(mono, "push", world.push_event(merge), merge, "apply")
    assert apply.code == 1, apply.stdout[-600:] + apply.stderr[-1500:]
    assert out["success"] == "false", out  # the last project's: true
    junits = out["junit-path"].split("\n")
    logs = out["logs-path"].split("\n")
    assert len(junits) == len(logs) == len(BATCH), out
    assert [Path(j).parent.name for j in junits[:2]] == ["apps-p01", "apps-p02"], junits
    assert junits[2] == logs[2] == "", out  # p03 ran nothing: no report, no logs
    assert all(Path(folder).is_dir() and any(Path(folder).iterdir()) for folder in logs[:2])
    per_project = [junit_counts(Path(j)) for j in junits[:2]]
    assert per_project[0][1] == 0 and per_project[1][1] >= 1 and per_project[1][2] >= 1
    summed = tuple(map(sum, zip(*per_project, strict=True)))
    assert (int(out["succeeded"]), int(out["failed"]), int(out["skipped"])) == summed, out
    assert mono.state_of("apps/p01") is not None
    # the monorepo workflow's apply job uploads every project's report and logs
    assert set(upload_paths(out)) == {*junits[:2], *logs[:2]}


def upload_paths(outputs: dict[str, str]) -> list[str]:
    """The paths the monorepo apply job's actions/upload-artifact step gets from these
    outputs: its ``path`` with the expressions replaced, one pattern a line (blank lines and
    ``#`` comments are no pattern, as in @actions/glob)."""
    workflow = YAML(typ="safe", pure=True).load(
        (REPO_ROOT / "examples/workflows/averos-monorepo.yml").read_text("utf-8")
    )
    (step,) = (
        s
        for s in workflow["jobs"]["apply"]["steps"]
        if str(s.get("uses", "")).startswith("actions/upload-artifact@")
    )
    text = re.sub(
        r"\$\{\{ steps\.averos\.outputs\.([\w-]+) \}\}",
        lambda m: outputs[m.group(1)],
        step["with"]["path"],
    )
    lines = (line.strip() for line in text.splitlines())
    return [line for line in lines if line and not line.startswith("#")]


def test_every_output_of_the_action_has_a_batch_rule_and_a_documented_batch_meaning() -> None:
    """A new output is combined on purpose, not by the default; the reference says how."""
    action = YAML(typ="safe", pure=True).load((REPO_ROOT / "action.yml").read_text("utf-8"))
    written = set(action["outputs"]) - {"executable"}  # the action's, one for the whole step
    assert written <= set(RULES), written - set(RULES)
    page = (REPO_ROOT / "docs/reference/github-action.md").read_text(encoding="utf-8")
    table = page[page.index("| Output | Meaning | In a batch |") :]
    table = table[: table.index("\n\n")]
    for name in action["outputs"]:
        row = next((r for r in table.splitlines() if f"`{name}`" in r.split("|")[1]), None)
        assert row is not None and row.split("|")[3].strip(), name
