"""``apply`` for a regenerating adapter: generate pristine(new) (checkpointed, resumable), merge
it three-way into the workspace, record the state with the pristine tree.

The workspace is changed only by the merge: the node-by-node path (schematics run in the user's
workspace) does not give the same bytes as a clean generation (Averos 1.4.1 writes
``priority!: string`` for a number member added to an existing file), so it is not used.
"""

from __future__ import annotations

import dataclasses
import shutil
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from averos_ci._fs import contained
from averos_ci.config import RunConfig
from averos_ci.errors import AverosCIError, PlanConflicts
from averos_ci.execute.averos_logs import AverosExecutionLog, write_execution_plan
from averos_ci.execute.console import ConsoleListener, code_change_text, summary_line
from averos_ci.execute.contracts import CancelToken, ExecutionAdapter, ExecutionContext
from averos_ci.execute.events import RunnerEventListener
from averos_ci.execute.listeners import EVENTS_FILE_NAME, JsonlEventLog, load_listeners
from averos_ci.execute.regen.patching import (
    PatchPlan,
    apply_patch,
    merge_conflicts,
    plan_patch,
    scratch_folder,
    unresolved,
)
from averos_ci.execute.runner import RunResult
from averos_ci.execute.summary import with_code_change
from averos_ci.plan.model import ExecutionPlan
from averos_ci.plan.patch_render import render_patch_text
from averos_ci.plan.planner import args_hash
from averos_ci.state import AppliedState, FileStateStore, NodeState
from averos_ci.state.fingerprint import adapter_record, file_hash
from averos_ci.state.guard import Planned
from averos_ci.state.model import NodeFiles, PristineRecord, WorkspaceRecord, now_iso

MERGE_CONFLICT_MODES = ("refuse", "markers")


@dataclass(frozen=True)
class Regenerated:
    plan: ExecutionPlan
    result: RunResult
    state: AppliedState | None


def run_regenerated(
    config: RunConfig,
    base: Planned,
    *,
    adapter: ExecutionAdapter,
    execution: dict[str, object],
    dry_run: bool,
    verbose: bool,
    listeners: Sequence[RunnerEventListener],
    cancel: CancelToken,
    expected_plan_hash: str | None,
    check_plan: Callable[[ExecutionPlan], None] | None,
    mismatch: Callable[[ExecutionPlan], Exception],
    merge_conflicts_mode: str = "refuse",
    replan: bool = False,
) -> Regenerated:
    """``dry_run``: generate in a temporary folder, write nothing (no state, no pristine tree,
    no workspace file). ``replan``: discard an interrupted generation's checkpoints."""
    if replan and not dry_run:
        shutil.rmtree(scratch_folder(config), ignore_errors=True)
    with (
        tempfile.TemporaryDirectory(prefix="averos-ci-dry-run-")
        if dry_run
        else nullcontext(None) as tmp
    ):
        return _run(
            config, base, adapter=adapter, execution=execution, dry_run=dry_run,
            verbose=verbose, listeners=listeners, cancel=cancel,
            expected_plan_hash=expected_plan_hash, check_plan=check_plan, mismatch=mismatch,
            merge_conflicts_mode=merge_conflicts_mode,
            scratch=Path(tmp) if tmp is not None else None,
        )  # fmt: skip


def _run(
    config: RunConfig,
    base: Planned,
    *,
    adapter: ExecutionAdapter,
    execution: dict[str, object],
    dry_run: bool,
    verbose: bool,
    listeners: Sequence[RunnerEventListener],
    cancel: CancelToken,
    expected_plan_hash: str | None,
    check_plan: Callable[[ExecutionPlan], None] | None,
    mismatch: Callable[[ExecutionPlan], Exception],
    merge_conflicts_mode: str,
    scratch: Path | None,
) -> Regenerated:
    planned = base.planned
    logs_dir = scratch / "logs" if scratch is not None else config.logs_dir
    console = ConsoleListener(
        total=len(planned.plan.nodes), logs_dir=logs_dir, verbose=verbose, last_line=False
    )
    event_log = None if dry_run else JsonlEventLog(config.logs_dir / EVENTS_FILE_NAME)
    extra: list[RunnerEventListener] = []
    if event_log is not None:
        # Averos's own files too, as the node-by-node path writes them (execution-plan.json,
        # execution-log.jsonl), for tooling written against Averos's CLI
        write_execution_plan(config.logs_dir, planned.plan, warnings=planned.warnings)
        extra += [event_log, AverosExecutionLog(config.logs_dir, planned.plan)]
    try:
        pp = plan_patch(
            planned,
            config=config,
            adapter=adapter,
            execution=execution,
            listeners=[console, *extra, *load_listeners(config.listeners), *listeners],
            cancel=cancel,
            verbose=verbose,
            logs_dir=logs_dir,
            raise_interrupted=False,
            scratch=scratch,
        )
    finally:
        if event_log is not None:
            event_log.close()
    plan = pp.planned.plan
    if not pp.new.result.summary.success:
        # a node of the generation failed or was cut short: a failed (resumable) run
        print(summary_line(pp.new.result.summary, interrupted=pp.new.result.interrupted))
        return Regenerated(plan, pp.new.result, planned.base_state)
    if expected_plan_hash is not None and plan.plan_hash != expected_plan_hash:
        # Exactly the approved plan, its code change included: the semantic plan alone (what
        # an approval of the manifest change without its code change would pin) is refused
        # too — the code change computed now was never shown to anyone.
        error = mismatch(plan)
        if expected_plan_hash == planned.plan.plan_hash and isinstance(error, AverosCIError):
            # the caller's mismatch error class (execute.apply.PlanMismatch), a clearer message
            raise type(error)(
                f"the expected plan {expected_plan_hash[:12]} is the plan without its code "
                f"change; with it the plan is {plan.plan_hash[:12]}: nothing was executed",
                path=config.manifest_path,
                hint="pass the full planHash (`averos-ci plan` shows it, the code change "
                "included) once that plan is reviewed",
            )
        raise error
    if check_plan is not None:
        check_plan(plan)
    sys.stdout.write(render_patch_text(pp.patch))
    if pp.patch.generator_failed is not None:
        raise PlanConflicts(
            f"the plan cannot be applied: {pp.patch.generator_failed}",
            path=config.manifest_path,
            hint="see the node logs; revert the manifest change the generator cannot express",
        )
    if (pp.patch.conflicts and merge_conflicts_mode != "markers") or unresolved(pp.patch):
        raise merge_conflicts(pp.patch)  # markers left unresolved: refused in either mode
    result = pp.new.result
    state = planned.base_state
    if not dry_run:
        started = time.perf_counter()
        apply_patch(pp.patch, config.workspace_root, markers=True)
        _ready(adapter, config, cancel=cancel, verbose=verbose)
        state = _record(pp, config=config, adapter=adapter, plan=plan)
        summary, records = with_code_change(
            result.summary,
            result.records,
            pp.patch,
            duration_ms=int((time.perf_counter() - started) * 1000),
        )
        result = dataclasses.replace(result, summary=summary, records=records)
        change = summary.code_change
        if change is not None:  # the same counts as the run's last line and its reports
            print(
                f"applied the code change: {code_change_text(change)}; state serial {state.serial}"
            )
    print(summary_line(result.summary))
    return Regenerated(plan, result, state)


def _ready(
    adapter: ExecutionAdapter, config: RunConfig, *, cancel: CancelToken, verbose: bool
) -> None:
    """Let the adapter open the merged workspace (what it needs besides the generated sources:
    the Angular adapter links or installs ``node_modules``, never part of a pristine tree)."""
    config.logs_dir.mkdir(parents=True, exist_ok=True)
    context = ExecutionContext(
        dry_run=False,
        workspace_root=config.workspace_root,
        logs_dir=config.logs_dir,
        attempt=0,
        run_id=uuid.uuid4().hex,
        cancel=cancel,
        log_file=config.logs_dir / "adapter.log",
        development=config.development,
        verbose=verbose,
    )
    adapter.open(context)
    adapter.close()


def _record(
    pp: PatchPlan, *, config: RunConfig, adapter: ExecutionAdapter, plan: ExecutionPlan
) -> AppliedState:
    planned, tree = pp.planned, pp.new.tree
    assert tree is not None
    root = config.workspace_root
    nodes: dict[str, NodeFiles] = {}
    for node_id, paths in sorted(tree.nodes.items()):
        files = {p: h for p in paths if (h := file_hash(contained(root, p))) is not None}
        if files:
            nodes[node_id] = NodeFiles(files=files)
    previous = planned.base_state.workspace if planned.base_state is not None else None
    workspace = WorkspaceRecord(
        nodes=nodes,
        commit=previous.commit if previous else None,
        pull_request=previous.pull_request if previous else None,
    )
    now = now_iso()
    node_states = {n.id: NodeState(args_hash=args_hash(n), applied_at=now) for n in plan.nodes}
    common: dict[str, Any] = {
        "manifest": planned.manifest,
        "manifest_hash": plan.manifest_hash,
        "node_states": node_states,
        "adapter": adapter_record(adapter, config.adapter_options),
        "workspace": workspace,
        "pristine": PristineRecord(key=pp.new.key, files=tree.hashes()),
    }
    base = planned.base_state
    state = base.successor(**common) if base is not None else AppliedState.first(**common)
    FileStateStore(config.state_path).save(state)
    pp.store.prune({pp.new.key})
    return state
