"""What each averos-ci command needs from the workflow job that runs it, checked on a
workflow file: triggers, token permissions and, for ``apply``, the full history, the apply
environment and the state key. ``doctor`` runs it on ``.github/workflows``; the tests run it
on the examples, so the examples and this table cannot disagree."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError

from averos_ci.onboard.checklist import ENVIRONMENT, STATE_KEY_SECRET
from averos_ci.onboard.expressions import Opaque, Own, may_run, possible
from averos_ci.onboard.pr_code import pr_code_steps

_LEVEL = {"none": 0, "read": 1, "write": 2}
# Events whose workflow file comes from the pull request's merge ref: its author controls the
# workflow anyway, and a fork's run has a read-only token (docs/explanation/threat-model.md)
PR_EVENTS = frozenset(
    {"pull_request", "pull_request_review", "pull_request_review_comment", "merge_group"}
)


@dataclass(frozen=True)
class Needs:
    any_trigger: frozenset[str]  # at least one of them (empty: none required)
    all_triggers: frozenset[str]
    permissions: tuple[tuple[str, str], ...]
    apply: bool = False
    read_only: bool = False  # no scope may be granted 'write' (the job runs PR code)


_READ_PR = (("contents", "read"), ("pull-requests", "write"), ("statuses", "write"))
NEEDS: dict[str, Needs] = {
    "plan": Needs(
        frozenset({"pull_request", "merge_group", "workflow_run"}), frozenset(), _READ_PR
    ),
    "approve": Needs(frozenset(), frozenset({"issue_comment", "pull_request_review"}), _READ_PR),
    # push: the merge; issue_comment and workflow_dispatch: the recovery paths
    "apply": Needs(
        frozenset(),
        frozenset({"push", "issue_comment", "workflow_dispatch"}),
        (("contents", "write"), ("pull-requests", "write"), ("statuses", "write")),
        apply=True,
    ),
    # the pull request's generator, without credentials: read the checkout, nothing else
    "patch": Needs(
        frozenset({"pull_request"}), frozenset(), (("contents", "read"),), read_only=True
    ),
    # publishes the patch job's result (read as data) in the plan comment and status; a
    # fork's in the privileged workflow_run follow-up (averos-fork-comment.yml)
    "complete": Needs(frozenset({"pull_request", "workflow_run"}), frozenset(), _READ_PR),
    "gate": Needs(
        frozenset(),
        frozenset(),
        (("contents", "read"), ("pull-requests", "read"), ("statuses", "write")),
    ),
    # installs averos-ci for a later step (the monorepo's project discovery); no API call
    "install": Needs(frozenset(), frozenset(), ()),
    # the scheduled drift check: reads the default and state branches, keeps one issue
    # per drifted project and pushes its record to the state branch for the dashboard
    # (averos_ci/github/drift_flow.py)
    "drift": Needs(
        frozenset({"schedule", "workflow_dispatch"}),
        frozenset(),
        (("contents", "write"), ("issues", "write")),
    ),
}
_AUTO = {
    "schedule": "drift",
    "pull_request": "plan",
    "merge_group": "plan",
    "workflow_run": "plan",
    "pull_request_review": "approve",
    "issue_comment": "approve",
    "push": "apply",
    "workflow_dispatch": "apply",
}


@dataclass(frozen=True)
class AverosStep:
    file: str
    job: str
    command: str


def load_workflow(path: Path) -> dict[str, Any] | None:
    try:
        data = YAML(typ="safe", pure=True).load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, YAMLError):
        return None
    return data if isinstance(data, dict) else None


def triggers(workflow: dict[str, Any]) -> dict[str, Any]:
    # YAML 1.1 readers turn the key ``on`` into True
    keys: dict[Any, Any] = workflow
    on = keys.get("on", keys.get(True))
    if isinstance(on, str):
        return {on: None}
    if isinstance(on, list):
        return {str(t): None for t in on}
    return {str(k): v for k, v in on.items()} if isinstance(on, dict) else {}


def is_averos_action(uses: str) -> bool:
    """``uses`` names averos-ci: the local action the examples use (``./.github/actions/
    averos-ci``, which pins the release) or the release itself (``owner/averos-ci@ref``)."""
    return uses.split("@")[0].rstrip("/").endswith("/averos-ci")


def averos_steps(workflow: dict[str, Any], file: str) -> list[tuple[AverosStep, dict[str, Any]]]:
    """``(step, job)`` for every step that uses the averos-ci action."""
    found = []
    for name, job in (workflow.get("jobs") or {}).items():
        if not isinstance(job, dict):
            continue
        for step in job.get("steps") or []:
            uses = str(step.get("uses", "")) if isinstance(step, dict) else ""
            if is_averos_action(uses):
                command = str((step.get("with") or {}).get("command", "auto"))
                found.append((AverosStep(file, str(name), command), job))
    return found


def missing_local_actions(workflow: dict[str, Any], root: Path) -> list[str]:
    """The local averos-ci actions (``./…``) the workflow runs that ``root`` does not hold."""
    missing = []
    for job in (workflow.get("jobs") or {}).values():
        steps = job.get("steps") if isinstance(job, dict) else None
        for step in steps or []:
            uses = str(step.get("uses", "")) if isinstance(step, dict) else ""
            local = uses.startswith("./") and is_averos_action(uses) and uses not in missing
            if local and not any(
                (root / uses / n).is_file() for n in ("action.yml", "action.yaml")
            ):
                missing.append(uses)
    return missing


def untrusted_checkouts(workflow: dict[str, Any]) -> list[str]:
    """Jobs that can run a local action (``./…``: code of the checkout) from a tree the
    workflow does not vouch for. On an event that runs the default branch's workflow with its
    credentials (every event but :data:`PR_EVENTS`), each checkout before the local action must
    be the workflow's own commit: no ``ref:`` that can name other code (a pull request's head),
    no other ``repository:``. ``if:`` and ``ref:`` are evaluated for each event."""
    out = []
    events = sorted(set(triggers(workflow)) - PR_EVENTS)
    jobs = workflow.get("jobs")
    for name, job in (jobs if isinstance(jobs, dict) else {}).items():
        if not isinstance(job, dict) or not isinstance(job.get("steps"), list):
            continue  # not a job with steps: nothing runs a local action
        steps = [s for s in job["steps"] if isinstance(s, dict)]
        local = [i for i, s in enumerate(steps) if str(s.get("uses", "")).startswith("./")]
        if not local:
            continue
        checkouts = [
            s for s in steps[: local[-1]] if str(s.get("uses", "")).startswith("actions/checkout@")
        ]
        for event in events:
            try:
                out += _foreign_checkouts(str(name), job, checkouts, event)
            except ValueError as exc:  # an expression this reader cannot follow: say so
                out.append(f"job '{name}' on {event}: cannot tell what it checks out ({exc})")
    return out


def _foreign_checkouts(
    name: str, job: dict[str, Any], checkouts: list[dict[str, Any]], event: str
) -> list[str]:
    if not may_run(job.get("if"), event):
        return []
    out = []
    where = f"job '{name}' on {event}: checks out"
    why = "before it runs a local action, with the default branch's credentials"
    for step in checkouts:
        given = step.get("with") or {}
        if not isinstance(given, dict):
            out.append(f"{where} with an unreadable 'with:' {why}")
            continue
        repository = given.get("repository")
        if repository not in (None, "", "${{ github.repository }}"):
            out.append(f"{where} the repository {repository!r} {why}")
        values = possible(given.get("ref"), event)
        foreign = [v for v in values if v not in (None, "") and not isinstance(v, Own)]
        if foreign:
            shown = foreign[0].name if isinstance(foreign[0], Opaque) else repr(foreign[0])
            out.append(f"{where} {given.get('ref')!r} (can be {shown}) {why}")
    return out


def problems(path: Path, *, branch: str) -> list[str]:
    """Every way the workflow at ``path`` does not give its averos-ci steps what they need,
    or runs a local action from code it does not vouch for (a checkout, a fetch, an
    artifact)."""
    workflow = load_workflow(path)
    if workflow is None:
        return [f"{path.name}: not a readable workflow (YAML)"]
    on = triggers(workflow)
    out: list[str] = [f"{path.name}: {p}" for p in untrusted_checkouts(workflow)]
    out += [f"{path.name}: {p}" for p in pr_code_steps(workflow, on, PR_EVENTS)]
    for step, job in averos_steps(workflow, path.name):
        where = f"{path.name}: job '{step.job}' ({step.command})"
        commands = _commands(step.command, on)
        if not commands:
            out.append(f"{where}: unknown command '{step.command}'")
        for command in commands:
            out.extend(f"{where}: {p}" for p in _check(NEEDS[command], workflow, job, on, branch))
    return out


def _commands(command: str, on: dict[str, Any]) -> list[str]:
    if command == "auto":
        return sorted({_AUTO[t] for t in on if t in _AUTO})
    return [command] if command in NEEDS else []


def _check(
    needs: Needs, workflow: dict[str, Any], job: dict[str, Any], on: dict[str, Any], branch: str
) -> list[str]:
    out = []
    if needs.any_trigger and not needs.any_trigger & on.keys():
        out.append("no trigger it acts on (one of " + ", ".join(sorted(needs.any_trigger)) + ")")
    for trigger in sorted(needs.all_triggers - on.keys()):
        out.append(f"missing trigger '{trigger}'")
    push = on.get("push")
    branches = push.get("branches") if isinstance(push, dict) else None
    if needs.apply and branches is not None and branch not in branches:
        out.append(f"'push' does not run on the default branch '{branch}'")
    granted = job.get("permissions", workflow.get("permissions"))
    if not isinstance(granted, dict):
        out.append("no explicit 'permissions:' (the repository default applies)")
        granted = {}
    for scope, level in needs.permissions:
        have = str(granted.get(scope, "none"))
        if _LEVEL.get(have, 0) < _LEVEL[level]:
            out.append(f"needs 'permissions: {scope}: {level}' (has {have})")
    if needs.read_only:
        granted_write = sorted(k for k, v in granted.items() if str(v) == "write")
        if granted_write or str(job.get("permissions", "")) == "write-all":
            out.append(
                "runs the pull request's generator: grant no 'write' permission (has "
                + (", ".join(granted_write) or "write-all")
                + ")"
            )
    if needs.apply:
        out.extend(_apply_checks(job))
    return out


def _apply_checks(job: dict[str, Any]) -> list[str]:
    out = []
    steps = [s for s in job.get("steps") or [] if isinstance(s, dict)]
    checkout = [s for s in steps if str(s.get("uses", "")).startswith("actions/checkout@")]
    if not any(str((s.get("with") or {}).get("fetch-depth")) == "0" for s in checkout):
        out.append("the checkout needs 'fetch-depth: 0' (the catch-up walks the history)")
    environment = job.get("environment")
    name = environment.get("name") if isinstance(environment, dict) else environment
    if name != ENVIRONMENT:
        out.append(f"needs 'environment: {ENVIRONMENT}' (where the state key lives)")
    keys = [
        str((s.get("with") or {}).get("state-key", ""))
        for s in steps
        if is_averos_action(str(s.get("uses", "")))
    ]
    if not any(f"secrets.{STATE_KEY_SECRET}" in k for k in keys):
        out.append(f"needs 'state-key: ${{{{ secrets.{STATE_KEY_SECRET} }}}}'")
    return out
