"""``doctor`` reports every step before the local action that can bring pull-request code into
the job by another way than ``actions/checkout`` (which ``untrusted_checkouts`` already reads).

The attack: a privileged job (``issue_comment``, ``workflow_run``, ``push``…: the default
branch's workflow, its write token and secrets) checks out its own commit as the rule asks, then
runs ``git fetch origin pull/N/head && git checkout FETCH_HEAD`` (or ``gh pr checkout``, or
``git checkout ${{ github.head_ref }}``), and ``uses: ./.github/actions/averos-ci`` now runs the
pull request's action. Or any job downloads an artifact into the workspace, over the local
action: artifacts can be written by pull-request code (the token-less patch job holds the
runtime token of its upload step), and no ruleset on ``.github/**`` covers them.

Each pattern has a positive and a benign near-miss, run through ``problems`` — what ``doctor``'s
``workflows`` check reports for each file of ``.github/workflows``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from averos_ci.onboard.workflow_rules import problems

JOB = """\
name: crafted
on:
  {event}:
permissions: {{}}
jobs:
  approve:
    runs-on: ubuntu-latest
    permissions:
      contents: read
      pull-requests: write
      statuses: write
    steps:
      - uses: actions/checkout@11bd71901bbe5b1630ceea73d27597364c9af683 # v4.2.2
        with:
          persist-credentials: false
{before}      - uses: ./.github/actions/averos-ci
        with:
          command: gate
"""


def run_step(script: str, env: str = "") -> str:
    lines = "".join(f"          {line}\n" for line in script.splitlines())
    return f"      - name: bring\n{env}        run: |\n{lines}"


def found(tmp_path: Path, before: str, event: str = "issue_comment") -> list[str]:
    path = tmp_path / "crafted.yml"
    path.write_text(JOB.format(event=event, before=before), encoding="utf-8")
    return [p for p in problems(path, branch="main") if "pull-request code" in p or "artifact" in p]


FETCHES = {
    "fetch pull/N/head + FETCH_HEAD": (
        run_step(
            "git fetch origin pull/${{ github.event.issue.number }}/head\ngit checkout FETCH_HEAD"
        ),
        run_step("git fetch origin main --depth=1\ngit log -1 FETCH_HEAD"),
    ),
    "fetch refs/pull/...": (
        run_step('git fetch --no-tags origin "refs/pull/$PR/merge:pr"\ngit switch pr'),
        run_step("git fetch --no-tags origin refs/heads/main:refs/remotes/origin/main"),
    ),
    "checkout head_ref": (
        run_step("git checkout ${{ github.head_ref }}"),
        run_step("echo 'checking ${{ github.head_ref }}' >> \"$GITHUB_STEP_SUMMARY\""),
    ),
    "checkout head sha": (
        run_step(
            "git -c advice.detachedHead=false checkout ${{ github.event.pull_request.head.sha }}"
        ),
        run_step("git checkout ${{ github.sha }}"),
    ),
    "checkout through an env variable": (
        run_step(
            'git checkout "$HEAD"',
            env="        env:\n          HEAD: ${{ github.event.workflow_run.head_sha }}\n",
        ),
        run_step(
            'git checkout "$BASE"',
            env="        env:\n          BASE: ${{ github.event.repository.default_branch }}\n",
        ),
    ),
    "git pull of a PR ref": (
        run_step("git pull origin pull/12/head"),
        run_step("git pull --ff-only origin main"),
    ),
    "gh pr checkout": (
        run_step('gh pr checkout "${{ github.event.issue.number }}"'),
        run_step('gh pr view "${{ github.event.issue.number }}" --json title'),
    ),
}


@pytest.mark.parametrize("pattern", sorted(FETCHES))
def test_attack_a_run_step_that_brings_pull_request_code_is_reported(
    tmp_path: Path, pattern: str
) -> None:
    attack, benign = FETCHES[pattern]
    reported = found(tmp_path, attack)
    assert len(reported) == 1, reported
    assert "crafted.yml: job 'approve' on issue_comment: step 'bring'" in reported[0], reported
    assert found(tmp_path, benign) == [], pattern  # the near-miss passes


def test_a_fetch_in_a_pull_request_run_is_no_escalation(tmp_path: Path) -> None:
    """On pull_request the workflow comes from the PR's merge ref; fetching its head is the
    checkout the plan job already makes (docs/explanation/threat-model.md)."""
    attack, _ = FETCHES["fetch pull/N/head + FETCH_HEAD"]
    assert found(tmp_path, attack, event="pull_request") == []
    assert found(tmp_path, attack, event="workflow_run") != []  # control: the same step, privileged


def download(uses: str, path: str | None) -> str:
    step = (
        f"      - name: bring\n        uses: {uses}\n        with:\n          name: averos-patch\n"
    )
    return step + (f"          path: {path}\n" if path is not None else "")


DOWNLOADS = {
    "download-artifact into the action's folder": (
        download(
            "actions/download-artifact@d3f86a106a0bac45b974a628896c90dbdf5c8093",
            ".github/actions/averos-ci",
        ),
        download(
            "actions/download-artifact@d3f86a106a0bac45b974a628896c90dbdf5c8093",
            "${{ runner.temp }}/averos-ci-patch",
        ),
    ),
    "download-artifact into the workspace (no path)": (
        download("actions/download-artifact@d3f86a106a0bac45b974a628896c90dbdf5c8093", None),
        download(
            "actions/download-artifact@d3f86a106a0bac45b974a628896c90dbdf5c8093",
            "${{ runner.temp }}",
        ),
    ),
    "dawidd6/action-download-artifact": (
        download("dawidd6/action-download-artifact@v6", "."),
        download("dawidd6/action-download-artifact@v6", "${{ runner.temp }}/in"),
    ),
}


@pytest.mark.parametrize("pattern", sorted(DOWNLOADS))
@pytest.mark.parametrize("event", ["workflow_run", "pull_request"])
def test_attack_an_artifact_downloaded_into_the_workspace_is_reported(
    tmp_path: Path, pattern: str, event: str
) -> None:
    attack, benign = DOWNLOADS[pattern]
    reported = found(tmp_path, attack, event=event)
    assert len(reported) == 1 and f"job 'approve' on {event}: step 'bring'" in reported[0], reported
    assert found(tmp_path, benign, event=event) == [], pattern


def test_a_download_after_the_local_action_is_not_reported(tmp_path: Path) -> None:
    attack, _ = DOWNLOADS["download-artifact into the action's folder"]
    text = JOB.format(event="workflow_run", before="") + attack.replace(
        "      - name", "      - name", 1
    )
    path = tmp_path / "after.yml"
    path.write_text(text, encoding="utf-8")
    assert [p for p in problems(path, branch="main") if "artifact" in p] == []
