"""``averos-ci state rollback``: make the state what it was after an earlier applied commit.

The state branch's history holds every applied ``state.json``: the commit that added an apply's
run record also wrote the state that apply produced. The rolled-back state gets a *new*
serial, so no plan approved against an earlier state becomes valid again: the next apply runs
a plan computed (and approved) against the rolled-back state. The workspace is not touched.
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from averos_ci._fs import atomic_write_text
from averos_ci.plan.canonical import canonical_json
from averos_ci.plan.items import plain
from averos_ci.plan.model import ExecutionPlan
from averos_ci.plan.render import render_text
from averos_ci.planning import LoadedState, plan_project
from averos_ci.state.drift import DriftReport, render_drift
from averos_ci.state.model import AppliedState
from averos_ci.state.store import parse_state
from averos_ci.statebranch.claim import RUNS
from averos_ci.stateops.operation import (
    NothingToDo,
    OpResult,
    StateBusy,
    StateTarget,
    check_reason,
    write_op,
)
from averos_ci.stateops.show import RunRecord, StateView

__all__ = ["RollbackPlan", "plan_rollback", "rollback_state"]


@dataclass(frozen=True)
class RollbackPlan:
    project: str
    branch: str
    target: RunRecord
    current: AppliedState
    rolled_back: AppliedState
    plan: ExecutionPlan
    drift: DriftReport | None
    manifest: Path
    target_serial: int
    result: OpResult | None = None

    def render_text(self) -> str:
        t, cur, new = self.target, self.current, self.rolled_back
        later = [plain(f) for f in sorted(set(_files(cur)) - set(_files(new)))]
        run = plain(t.run_id)  # strings of the state branch never drive the terminal
        lines = [
            f"Rollback of project {self.project!r} on {self.branch!r} to the state after "
            f"applied commit {plain(str(t.sha)[:12])} (run {run}):",
            f"  state now:        serial {cur.serial}, {len(cur.node_states)} node(s), "
            f"manifest {cur.manifest_hash[:12]}",
            f"  rolled back to:   serial {new.serial} (new), {len(new.node_states)} node(s), "
            f"manifest {plain(new.manifest_hash[:12])} (as after run {run})",
            "",
            f"The next apply would execute this plan ({self.manifest} against the "
            "rolled-back state), once a plan computed against the rolled-back state is "
            "approved as usual:",
            "",
            render_text(self.plan).rstrip("\n"),
            "",
            "Workspace: the rollback does not change it. It keeps the files later applies "
            f"generated ({len(later)} file(s) the rolled-back state does not list"
            + (": " + ", ".join(later[:10]) + (" …" if len(later) > 10 else "") if later else "")
            + "); the next apply runs the plan above on it"
            + (
                f"; the rolled-back state's application was generated at commit "
                f"{new.workspace.commit[:12]}"
                if new.workspace and new.workspace.commit
                else ""
            )
            + ".",
        ]
        if self.drift is not None:
            lines.append("This checkout's workspace against the rolled-back state:")
            lines.append(render_drift(self.drift).rstrip("\n"))
        if self.result is None:
            lines.append("")
            lines.append("Dry run: nothing was written. Run again with --yes to roll back.")
        else:
            lines.append("")
            lines.append(f"Rolled back: {self.result.message}")
        return "\n".join(lines) + "\n"


def plan_rollback(target: StateTarget, *, to: str) -> RollbackPlan:
    """What rolling back to ``to`` (an applied commit, a prefix of it, or a run id) means."""
    view = target.view()
    return _plan(target, view, to)


def rollback_state(target: StateTarget, *, to: str, reason: str, yes: bool) -> RollbackPlan:
    """The plan of the rollback; with ``yes``, also write it (one commit, pushed)."""
    check_reason(reason)
    shown = plan_rollback(target, to=to)
    if not yes:
        return shown
    project = target.project
    tmp = Path(tempfile.mkdtemp(prefix="averos-ci-rollback-"))

    def decide(view: StateView) -> tuple[dict[str, Path | None], dict[str, Any], str]:
        if view.state is None or view.state.serial != shown.current.serial:
            raise StateBusy(
                f"the state of project {project!r} changed since the rollback was planned",
                hint="run the command again to see the plan against the new state",
            )
        again = _plan(target, view, to)
        state_file = tmp / "state.json"
        atomic_write_text(state_file, canonical_json(again.rolled_back.to_wire()))
        last = view.last_apply
        record = {
            # the applied commit the state now describes (as an apply record's "sha")
            "sha": again.target.sha,
            "to": {"run": again.target.run_id, "serial": again.target_serial},
            "from": {
                "serial": again.current.serial,
                "manifestHash": again.current.manifest_hash,
                "sha": last.sha if last else None,
            },
            "serial": again.rolled_back.serial,
            "nextPlanHash": again.plan.plan_hash,
        }
        subject = f"roll back to {str(again.target.sha)[:12]} (run {again.target.run_id})"
        return {f"{project}/state.json": state_file}, record, subject

    try:
        result = write_op(target, action="rollback", reason=reason, decide=decide)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return replace(shown, result=result)


def _plan(target: StateTarget, view: StateView, to: str) -> RollbackPlan:
    sb, project = target.sb, target.project
    pending = view.pending
    if pending is not None and pending.present:
        raise StateBusy(
            f"an apply holds project {project!r} on {sb.branch!r} (its claim, checkpoints or "
            "partial workspace are there): the state is not rolled back under it",
            hint="let it finish (re-run its job), or drop it with `averos-ci state abandon "
            f"--reason '...' --project {project}`, then roll back",
        )
    if view.state is None:
        raise NothingToDo(
            f"nothing is applied for project {project!r} on {sb.branch!r}: nothing to roll back",
            hint="`averos-ci state show` shows the state",
        )
    record = _find(view, to)
    path = f"{project}/{RUNS}/{record.run_id}.json"
    added = str(sb.repo.git.log("--format=%H", "--diff-filter=A", view.tip, "--", path))
    commits = added.split()
    raw = sb.read(commits[-1], f"{project}/state.json") if commits else None
    if raw is None:
        raise NothingToDo(
            f"the state after run {record.run_id} is not in {sb.branch!r}'s history",
            hint="pick another applied commit from `averos-ci state show --format json`",
        )
    old = parse_state(raw, path=Path(f"{sb.branch}@{commits[-1][:12]}:{project}/state.json"))
    current = view.state
    if _same(old, current):
        raise NothingToDo(
            f"the state is already what run {record.run_id} left (manifest "
            f"{old.manifest_hash[:12]}): nothing to roll back",
            hint="pick an earlier applied commit from `averos-ci state show`",
        )
    rolled = AppliedState.model_validate({**old.to_wire(), "serial": current.serial + 1})
    config = target.config
    base = plan_project(
        config,
        LoadedState(rolled, f"{sb.branch}:{project}/state.json (rolled back)"),
        code_patch="off",  # fatal=False: a missing application is reported, as `plan` does
    )
    return RollbackPlan(
        project=project,
        branch=sb.branch,
        target=record,
        current=current,
        rolled_back=rolled,
        plan=base.planned.plan,
        drift=base.drift,
        manifest=_shown(config.manifest_path, target.repo_root),
        target_serial=old.serial,
    )


def _find(view: StateView, to: str) -> RunRecord:
    """The apply record ``to`` names: its run id, or its applied commit (a prefix of 7+)."""
    wanted = to.strip().lower().removesuffix(".json")
    applies = [r for r in view.records if r.action == "apply" and r.sha]
    by_id = [r for r in applies if r.run_id.lower() == wanted]
    if by_id:
        return by_id[-1]
    found: list[RunRecord] = []
    if len(wanted) >= 7 and all(c in "0123456789abcdef" for c in wanted):
        found = [r for r in applies if str(r.sha).lower().startswith(wanted)]
    if len({r.sha for r in found}) > 1:
        raise NothingToDo(
            f"{to!r} names more than one applied commit",
            hint="give more characters of the commit, or the run id",
        )
    if not found:
        known = ", ".join(f"{str(r.sha)[:12]} (run {r.run_id})" for r in applies[-5:])
        raise NothingToDo(
            f"{to!r} is neither an applied commit nor a run id of project "
            f"{view.project!r} on {view.branch!r}",
            hint=f"pick one of the applied commits: {known}"
            if known
            else "nothing was applied through the state branch yet",
        )
    return found[-1]  # applied twice (re-applied after a rollback): the latest


def _same(a: AppliedState, b: AppliedState) -> bool:
    skip = {"serial", "builtAt"}
    wa = {k: v for k, v in a.to_wire().items() if k not in skip}
    wb = {k: v for k, v in b.to_wire().items() if k not in skip}
    return wa == wb


def _shown(path: Path, root: Path) -> Path:
    try:
        return path.resolve().relative_to(root)
    except ValueError:
        return path


def _files(state: AppliedState) -> dict[str, str]:
    return state.workspace.files() if state.workspace else {}
