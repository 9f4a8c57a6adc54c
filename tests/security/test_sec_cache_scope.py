"""No cache a pull request can write reaches a job that holds credentials.

The attack: PR code started by the patch job's generator outlives its step, reads
``ACTIONS_RUNTIME_TOKEN`` from the next step of the same job (``actions/upload-artifact``)
through ``/proc/<pid>/environ`` and saves *any* key (the action's venv key is public and
deterministic) in the cache scope of that run. A later credentialed job (plan, complete,
approve, gate, apply: ``statuses``/``pull-requests``/``contents: write``) that restores the key
from that scope runs the planted environment with its token.

GitHub's scoping, as this model states it: a run restores from its own ref's scope, then from
the default branch's; ``pull_request``/``pull_request_review`` runs live in the PR's merge ref
(``refs/pull/N/merge``, writable by that PR's runs — its modified workflow included), a
``merge_group`` run in the queue's ref; ``push`` to a branch, ``issue_comment``,
``workflow_run``, ``schedule``, ``pull_request_target`` and ``workflow_dispatch`` (on the
default branch) in the branch's scope, which no pull-request run can write.

The world below is built from the real files: every workflow of ``examples/workflows`` and
``.github/workflows``, each job's ``permissions``, its ``if:`` and each step's ``if:`` evaluated
for each event (``averos_ci.onboard.expressions``), the local action followed into the wrapper
(``examples/actions/averos-ci``) and into this repository's ``action.yml``. What it cannot
express: GitHub's cache service itself (its real scope lookup, eviction, a key's
``restore-keys`` prefix matching are taken as documented, not run), and a restore that does not
go through a cache step (``actions/setup-*``'s ``cache:`` is counted; a ``run:`` calling the
cache API directly is not).
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML

from averos_ci.onboard.expressions import EXPR, Expression, Opaque, Value, truth
from averos_ci.onboard.workflow_rules import load_workflow, triggers
from tests.conftest import REPO_ROOT

ACTION = REPO_ROOT / "action.yml"
WRAPPER = REPO_ROOT / "examples" / "actions" / "averos-ci" / "action.yml"
WORKFLOWS = sorted(
    [
        *(REPO_ROOT / "examples" / "workflows").glob("*.yml"),
        *(REPO_ROOT / ".github" / "workflows").glob("*.yml"),
    ]
)
DEFAULT = "refs/heads/main"
PR_SCOPE = "refs/pull/7/merge"
QUEUE_SCOPE = "refs/heads/gh-readonly-queue/main/pr-7-0123abcd"
# events whose runs execute the pull request's workflow (its merge ref or the queue's group)
PR_EVENTS = {
    "pull_request": PR_SCOPE,
    "pull_request_review": PR_SCOPE,
    "pull_request_review_comment": PR_SCOPE,
    "merge_group": QUEUE_SCOPE,
}
DEFAULT_EVENTS = {
    "issue_comment",
    "workflow_run",
    "schedule",
    "pull_request_target",
    "workflow_dispatch",
}
RESTORING = re.compile(r"^actions/cache(/restore)?@")
SETUP_CACHE = re.compile(r"^actions/setup-[a-z]+@")


@dataclass(frozen=True)
class Restore:
    workflow: str
    job: str
    event: str
    step: str
    scopes: frozenset[str]  # the scopes the step can restore from


def runs(workflow: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """``(event, ref)`` of every run the workflow's triggers allow; the ref is its cache scope."""
    for event, spec in triggers(workflow).items():
        if event in PR_EVENTS:
            yield event, PR_EVENTS[event]
        elif event == "push":
            given = spec if isinstance(spec, dict) else {}
            branches = given.get("branches")
            for branch in (
                ["main", "feature"] if branches is None and "tags" not in given else branches or []
            ):
                yield event, f"refs/heads/{branch}"
            for tag in given.get("tags") or []:
                yield event, f"refs/tags/{tag}"
        elif event in DEFAULT_EVENTS:
            yield event, DEFAULT
        else:
            raise AssertionError(f"the model has no cache scope for the event {event!r}")


def lookup(event: str, ref: str, inputs: dict[str, set[Value]]) -> Callable[[str], set[Value]]:
    def find(name: str) -> set[Value]:
        if name == "github.event_name":
            return {event}
        if name == "github.ref":
            return {ref}
        if name == "github.event.repository.default_branch":
            return {"main"}
        if name.startswith("inputs.") and name[7:] in inputs:
            return inputs[name[7:]]
        return {Opaque(name)}

    return find


def field(text: object, find: Callable[[str], set[Value]]) -> set[Value]:
    if not isinstance(text, str):
        return {None if text is None else str(text)}
    whole = EXPR.fullmatch(text.strip())
    if whole:
        return Expression(whole.group(1), find).values()
    return {Opaque(text)} if EXPR.search(text) else {text}


def may_run(condition: object, find: Callable[[str], set[Value]]) -> bool:
    if condition is None:
        return True
    text = str(condition).strip()
    whole = EXPR.fullmatch(text)
    return any(
        truth(v) is not False for v in Expression(whole.group(1) if whole else text, find).values()
    )


def credentialed(workflow: dict[str, Any], job: dict[str, Any]) -> bool:
    """A job holding more than a read token: a write scope, the repository default, a secret."""
    granted = job.get("permissions", workflow.get("permissions"))
    if not isinstance(granted, dict):
        return granted != {}  # absent: the repository default, maybe write-all
    text = str(job)
    return (
        any(str(v) == "write" for v in granted.values())
        or "secrets." in text
        or "environment" in job
    )


def restores_of_steps(
    steps: list[Any],
    find: Callable[[str], set[Value]],
    action: dict[str, Any],
    where: tuple[str, str, str],
    scopes: frozenset[str],
) -> Iterator[Restore]:
    for index, step in enumerate(s for s in steps if isinstance(s, dict)):
        if not may_run(step.get("if"), find):
            continue
        uses = str(step.get("uses", ""))
        name = str(step.get("name") or step.get("id") or f"#{index + 1} {uses}")
        given = step.get("with") or {}
        if RESTORING.match(uses) or (SETUP_CACHE.match(uses) and given.get("cache")):
            yield Restore(*where[:2], where[2], name, scopes)
        nested = local_action(uses, action)
        if nested is not None:
            # an input is the caller's value, else the action's default, in the run's context
            inputs = {
                key: field(
                    given.get(key, spec.get("default") if isinstance(spec, dict) else None), find
                )
                for key, spec in (nested.get("inputs") or {}).items()
            }
            inner = lookup(where[2], next(iter(scopes - {DEFAULT}), DEFAULT), inputs)
            yield from restores_of_steps(nested["runs"]["steps"], inner, action, where, scopes)


def local_action(uses: str, action: dict[str, Any]) -> dict[str, Any] | None:
    """The action a step runs, as far as this world holds it: the wrapper, then the release."""
    if uses == "./.github/actions/averos-ci":
        return load(WRAPPER.read_text(encoding="utf-8"))
    if uses == "./" or uses.split("@")[0].endswith("/averos-ci"):
        return action
    return None


def load(text: str) -> dict[str, Any]:
    data = YAML(typ="safe", pure=True).load(text)
    assert isinstance(data, dict)
    return data


def credentialed_restores(action: dict[str, Any], files: list[Path] = WORKFLOWS) -> list[Restore]:
    """Every cache restore a credentialed job can make, with the scopes it reads."""
    found: list[Restore] = []
    for path in files:
        workflow = load_workflow(path)
        assert workflow is not None, path
        for event, ref in runs(workflow):
            scopes = frozenset({ref, DEFAULT})
            find = lookup(event, ref, {})
            for name, job in (workflow.get("jobs") or {}).items():
                if not credentialed(workflow, job) or not may_run(job.get("if"), find):
                    continue
                found += restores_of_steps(
                    job.get("steps") or [], find, action, (path.name, str(name), event), scopes
                )
    return found


def pr_writable_scopes(files: list[Path] = WORKFLOWS) -> set[str]:
    """The scopes a pull request can save into: every run of its own (modified) workflow, and
    every run of a job that executes its code (the patch job; its runtime token saves any key)."""
    scopes = set(PR_EVENTS.values())
    for path in files:
        workflow = load_workflow(path)
        assert workflow is not None
        for event, ref in runs(workflow):
            for job in (workflow.get("jobs") or {}).values():
                commands = {
                    str((s.get("with") or {}).get("command"))
                    for s in job.get("steps") or []
                    if isinstance(s, dict)
                }
                if "patch" in commands and may_run(job.get("if"), lookup(event, ref, {})):
                    scopes.add(ref)
    return scopes


def poisoned(action: dict[str, Any]) -> list[Restore]:
    writable = pr_writable_scopes()
    return [r for r in credentialed_restores(action) if r.scopes & writable]


def test_the_patch_jobs_saves_land_in_pull_request_scopes_only() -> None:
    patch_scopes = pr_writable_scopes() - set(PR_EVENTS.values())
    assert patch_scopes == set()  # the patch job runs on pull_request only: the PR's merge ref
    assert PR_SCOPE in pr_writable_scopes() and DEFAULT not in pr_writable_scopes()


def test_attack_no_credentialed_job_restores_a_cache_a_pull_request_can_save() -> None:
    action = load(ACTION.read_text(encoding="utf-8"))
    restores = credentialed_restores(action)
    # not vacuous: credentialed jobs on the default branch's scope do restore (warm installs)
    assert {(r.workflow, r.job, r.event) for r in restores} >= {
        ("averos-apply.yml", "apply", "push"),
        ("averos-approve.yml", "approve", "issue_comment"),
    }
    assert poisoned(action) == []


def test_control_the_action_before_the_fix_is_caught() -> None:
    """The same check on the action as it was (its restore ran for every command but patch)."""
    action = load(ACTION.read_text(encoding="utf-8"))
    for step in action["runs"]["steps"]:
        if RESTORING.match(str(step.get("uses", ""))) and "patch" in str(step.get("if")):
            step["if"] = re.sub(r"\s*&&.*", "", str(step["if"]))  # only the command test
    found = {(r.workflow, r.job, r.event) for r in poisoned(action)}
    assert {
        ("averos-plan.yml", "plan", "pull_request"),
        ("averos-plan.yml", "complete", "pull_request"),
        ("averos-approve.yml", "approve", "pull_request_review"),
        ("averos-monorepo.yml", "gate", "merge_group"),
        ("example.yml", "plan", "pull_request"),
    } <= found, found


def test_control_the_committed_action_before_the_fix_is_caught() -> None:
    """The action.yml of the commit this fix was made on, read from git."""
    shown = subprocess.run(
        ["git", "-C", str(REPO_ROOT), "show", "c35154d:action.yml"],
        capture_output=True,
        text=True,
        check=False,
    )
    if shown.returncode != 0:  # a checkout without that history: the mutated control above stands
        return
    found = {(r.workflow, r.job, r.event) for r in poisoned(load(shown.stdout))}
    assert ("averos-plan.yml", "plan", "pull_request") in found


CRAFTED = """\
name: crafted
on:
  pull_request:
permissions: {{}}
jobs:
  plan:
    runs-on: ubuntu-latest
    permissions:
      statuses: {level}
    steps:
      - uses: actions/setup-node@49933ea5288caeca8642d1e84afbd3f7d6820020 # v4.4.0
        with:
          node-version: "20"
          cache: npm
"""


def test_control_a_workflow_step_restoring_in_a_pull_request_scope_is_caught(
    tmp_path: Path,
) -> None:
    action = load(ACTION.read_text(encoding="utf-8"))
    for level, caught in (("write", True), ("read", False)):  # read: not credentialed
        path = tmp_path / f"crafted-{level}.yml"
        path.write_text(CRAFTED.format(level=level), encoding="utf-8")
        writable = pr_writable_scopes()
        found = [r for r in credentialed_restores(action, [path]) if r.scopes & writable]
        assert bool(found) is caught, level
