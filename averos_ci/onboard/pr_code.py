"""Steps that bring pull-request code into a job by another way than ``actions/checkout``,
before the job runs a local action (``./…``: code of the job's tree).

- A ``run:`` step that fetches or checks out a pull request's ref (``git fetch origin
  pull/N/head``, ``refs/pull/…``, ``git checkout ${{ github.head_ref }}`` or a head SHA, directly
  or through an ``env:`` variable, ``gh pr checkout``): reported on the events that run the
  default branch's workflow with its credentials. On ``pull_request`` and its kin the workflow
  comes from the pull request anyway (the same reasoning as ``untrusted_checkouts``).
- An artifact downloaded into the workspace (``actions/download-artifact``,
  ``dawidd6/action-download-artifact``): reported on every event. Pull-request code can write
  an artifact (the token-less patch job holds the runtime token of its upload step), and no
  ruleset on ``.github/**`` covers one unpacked over the local action. ``${{ runner.temp }}``
  is outside the checkout, so a download there is data only.

What a step's text does not show stays unseen: a script file that fetches, a composite
action's or a reusable workflow's own steps, ``actions/github-script``, an archive fetched
with ``curl`` (docs/explanation/threat-model.md).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from averos_ci.onboard.expressions import may_run

# contexts naming a pull request's head (its branch or commit), possibly another repository's
HEAD_CONTEXT = (
    r"\$\{\{\s*github\.(?:head_ref|event\.pull_request\.head\.\w+"
    r"|event\.workflow_run\.head_\w+|event\.merge_group\.head_\w+)\s*\}\}"
)
_GIT = r"\bgit\b[^\n;&|]*?\b"
FETCHES = (
    re.compile(r"\bgh\s+pr\s+checkout\b"),
    re.compile(_GIT + r"(?:fetch|pull)\b[^\n;&|]*\bpull/"),
    re.compile(_GIT + r"(?:fetch|pull|checkout|switch|reset|merge|rebase|worktree)\b[^\n;&|]*"
               + HEAD_CONTEXT),
)  # fmt: skip
DOWNLOADS = re.compile(r"^(?:actions/download-artifact|dawidd6/action-download-artifact)@")
_TEMP = re.compile(r"^\$\{\{\s*runner\.temp\s*\}\}(?:/|$)")


def pr_code_steps(
    workflow: dict[str, Any], events: Iterable[str], pr_events: frozenset[str]
) -> list[str]:
    """A located finding (job, event, step) for each step before a job's last local action
    that can bring pull-request code into the job."""
    out = []
    jobs = workflow.get("jobs")
    for name, job in (jobs if isinstance(jobs, dict) else {}).items():
        if not isinstance(job, dict) or not isinstance(job.get("steps"), list):
            continue
        steps = [s for s in job["steps"] if isinstance(s, dict)]
        local = [i for i, s in enumerate(steps) if str(s.get("uses", "")).startswith("./")]
        if not local:
            continue
        env = {**_mapping(workflow.get("env")), **_mapping(job.get("env"))}
        for event in sorted(events):
            if not may_run(job.get("if"), event):
                continue
            for index, step in enumerate(steps[: local[-1]]):
                label = str(step.get("name") or step.get("id") or f"#{index + 1}")
                where = f"job '{name}' on {event}: step '{label}'"
                found = _finding(step, env, privileged=event not in pr_events)
                if found:
                    out.append(f"{where} {found}")
    return out


def _finding(step: dict[str, Any], env: dict[str, str], *, privileged: bool) -> str | None:
    uses = str(step.get("uses", ""))
    if DOWNLOADS.match(uses):
        given = step.get("with")
        path = str(given.get("path") or "") if isinstance(given, dict) else ""
        if not _TEMP.match(path.strip()) or ".." in path:
            return (
                f"downloads an artifact into the workspace (path {path or '(its root)'!r}) before "
                "a local action: pull-request code can write artifacts; download it under "
                "${{ runner.temp }}"
            )
        return None
    script = step.get("run")
    if not privileged or not isinstance(script, str):
        return None
    text = _resolved(script.replace("\\\n", " "), {**env, **_mapping(step.get("env"))})
    for pattern in FETCHES:
        match = pattern.search(text)
        if match:
            return (
                f"brings pull-request code into the job ({match.group(0).strip()!r}) before it "
                "runs a local action with the default branch's credentials"
            )
    return None


def _resolved(script: str, env: dict[str, str]) -> str:
    """The script with each ``$NAME`` whose ``env:`` value names a pull request's head written
    as that value, so ``git checkout "$HEAD"`` reads as what it checks out."""
    for key, value in env.items():
        if re.search(HEAD_CONTEXT, value):
            name = re.escape(key)
            written = value.replace("\\", r"\\")  # a replacement text: backslashes escaped
            script = re.sub(r"\$(?:\{" + name + r"\}|" + name + r"\b)", written, script)
    return script


def _mapping(value: object) -> dict[str, str]:
    return {str(k): str(v) for k, v in value.items()} if isinstance(value, dict) else {}
