"""The execution of a planned plan: run -> reports -> new applied state. The plan comes from
the planning service (:func:`averos_ci.planning.apply` is the library side of ``averos-ci
run``); nothing here plans."""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from averos_ci.config import RunConfig
from averos_ci.errors import InputError, PlanConflicts
from averos_ci.execute.adapters import adapter_notice, adapter_options, get_adapter
from averos_ci.execute.adapters.identity import execution_identity
from averos_ci.execute.applied import announce_base, record_success
from averos_ci.execute.averos_logs import (
    AverosExecutionLog,
    write_execution_plan,
)
from averos_ci.execute.checkpoints import (
    CheckpointStore,
    FileCheckpointStore,
    MemoryCheckpointStore,
)
from averos_ci.execute.console import ConsoleListener
from averos_ci.execute.contracts import CancelToken, ExecutionAdapter
from averos_ci.execute.events import RunnerEventListener
from averos_ci.execute.listeners import EVENTS_FILE_NAME, JsonlEventLog, load_listeners
from averos_ci.execute.regen import regenerates
from averos_ci.execute.runner import Runner, RunnerOptions, RunResult
from averos_ci.execute.signals import cancel_on_signals
from averos_ci.execute.summary import NodeRecord, RunnerSummary
from averos_ci.plan.model import ExecutionPlan
from averos_ci.state import AppliedState, FileStateStore
from averos_ci.state.guard import Planned


class PlanNotApplicable(PlanConflicts):
    """The plan has conflicts: elements changed that cannot be updated after creation."""


class PlanMismatch(InputError):
    """The plan computed now is not the plan that was approved (``expected_plan_hash``)."""


@dataclass(frozen=True)
class ApplyOutcome:
    plan: ExecutionPlan
    summary: RunnerSummary
    state: AppliedState | None  # the applied state after the run (unchanged unless success)
    run_id: str = ""
    records: tuple[NodeRecord, ...] = ()
    interrupted: str | None = None  # why the run was cut short (signal, timeout)
    warnings: tuple[str, ...] = ()  # plan/validation warnings


# Writes the run's reports (summary, JUnit, markdown) from its result, ``generated`` (the run
# was a regenerating adapter's) and the adapter that ran. The caller owns the report paths.
WriteReports = Callable[[RunResult, bool, ExecutionAdapter], None]


def execute_planned(
    config: RunConfig,
    planned: Planned,
    *,
    write_reports: WriteReports,
    resume: bool = False,
    replan: bool = False,
    dry_run: bool = False,
    verbose: bool = False,
    listeners: Sequence[RunnerEventListener] = (),
    adapter: ExecutionAdapter | None = None,
    cancel: CancelToken | None = None,
    expected_plan_hash: str | None = None,
    check_plan: Callable[[ExecutionPlan], None] | None = None,
    merge_conflicts: str = "refuse",
) -> ApplyOutcome:
    """Execute ``planned`` (its semantic plan: a regenerating adapter completes it with the
    code patch it generates, checkpointed) — only if it is exactly ``expected_plan_hash``, and
    ``check_plan`` (called with the plan before anything runs) does not raise.

    ``merge_conflicts``: ``"refuse"`` (exit 5, nothing written) or ``"markers"`` (git conflict
    markers written into the conflicting files). Interruption (signal, ``timeoutMs``) and node
    failures are *returned*; bad input raises an InputError."""
    state_store = FileStateStore(config.state_path)
    base = replace(planned, planned=planned.without_patch, semantic=None, patch=None)
    planned_result = base.planned
    plan = planned_result.plan
    adapter = adapter or get_adapter(config.adapter, adapter_options(config))
    # Nothing to change, nothing to generate: a regenerating adapter's clean generation of an
    # unchanged manifest is the pristine tree already recorded, so the run is the ordinary
    # zero-node run and the state is left as it is (running a run twice changes nothing).
    announce_base(base, notice=adapter_notice(adapter))
    if regenerates(adapter) and plan.has_changes:
        return _apply_regenerated(
            config,
            base,
            adapter=adapter,
            dry_run=dry_run,
            verbose=verbose,
            write_reports=write_reports,
            listeners=listeners,
            cancel=cancel or CancelToken(),
            expected_plan_hash=expected_plan_hash,
            check_plan=check_plan,
            merge_conflicts=merge_conflicts,
            replan=replan,
        )
    if expected_plan_hash is not None and plan.plan_hash != expected_plan_hash:
        raise _mismatch(plan, expected_plan_hash, config)
    if check_plan is not None:
        check_plan(plan)
    if not plan.applicable:
        conflicts = ", ".join(c.id for c in plan.diff.conflicts[:10])
        raise PlanNotApplicable(
            f"the plan has {len(plan.diff.conflicts)} conflict(s) and cannot be applied: "
            f"{conflicts}",
            path=config.manifest_path,
            hint="revert those changes, or remove and re-add the elements under new names",
        )
    cancel = cancel or CancelToken()
    # Only a dry run needs a scratch logs folder (a real run must leave nothing behind).
    scratch_dir = tempfile.TemporaryDirectory(prefix="averos-ci-dry-run-") if dry_run else None
    with scratch_dir or contextlib.nullcontext():
        logs_dir = Path(scratch_dir.name) if scratch_dir is not None else config.logs_dir
        store = _checkpoint_store(config, dry_run=dry_run, resume=resume, replan=replan)
        builtin: list[RunnerEventListener] = [
            ConsoleListener(total=len(plan.executable_nodes()), logs_dir=logs_dir, verbose=verbose)
        ]
        event_log = None if dry_run else JsonlEventLog(config.logs_dir / EVENTS_FILE_NAME)
        if event_log is not None:
            builtin.append(event_log)
            # Averos's own files too, for tooling written against Averos's CLI
            write_execution_plan(config.logs_dir, plan, warnings=planned_result.warnings)
            builtin.append(AverosExecutionLog(config.logs_dir, plan))
        runner = Runner(
            plan=plan,
            adapter=adapter,
            checkpoints=store,
            cancel=cancel,
            listeners=[*builtin, *load_listeners(config.listeners), *listeners],
            options=RunnerOptions(
                workspace_root=config.workspace_root,
                logs_dir=logs_dir,
                mode=config.mode,
                max_attempts=config.max_attempts,
                timeout_ms=config.timeout_ms,
                concurrency=config.concurrency,
                dry_run=dry_run,
                development=config.development,
                verbose=verbose,
            ),
        )
        try:
            with cancel_on_signals(cancel, abort=runner.abort):
                result = runner.run(resume=resume)
            success = result.summary.success and not dry_run
            if success:  # durable before the state moves, so a crash after it is recognised
                store.complete()
        finally:
            store.close()
            if event_log is not None:
                event_log.close()
        try:
            write_reports(result, False, adapter)
        except OSError as exc:  # paths were checked up front: a full disk, a vanished folder
            raise InputError(
                f"a report could not be written: {exc.strerror}",
                path=exc.filename,
                hint="the run's checkpoints are kept: fix the path and run again with --resume "
                "to record the applied state and write the reports",
            ) from None
        state = planned_result.base_state
        if success:  # after the reports: a crash in between is finished by --resume
            state = record_success(
                planned_result, store, state_store, config=config, adapter=adapter
            )
    return ApplyOutcome(
        plan=plan,
        summary=result.summary,
        state=state,
        run_id=result.run_id,
        records=result.records,
        interrupted=result.interrupted,
        warnings=planned_result.warnings,
    )


def _mismatch(plan: ExecutionPlan, expected: str, config: RunConfig) -> PlanMismatch:
    return PlanMismatch(
        f"the plan is {plan.plan_hash[:12]}, not the expected (approved) plan "
        f"{expected[:12]}: nothing was executed",
        path=config.manifest_path,
        hint="re-plan (averos-ci plan) and have the new plan approved",
    )


def _apply_regenerated(
    config: RunConfig,
    base: Planned,
    *,
    adapter: ExecutionAdapter,
    dry_run: bool,
    verbose: bool,
    write_reports: WriteReports,
    listeners: Sequence[RunnerEventListener],
    cancel: CancelToken,
    expected_plan_hash: str | None,
    check_plan: Callable[[ExecutionPlan], None] | None,
    merge_conflicts: str,
    replan: bool = False,
) -> ApplyOutcome:
    from averos_ci.execute.regen.run import run_regenerated

    with cancel_on_signals(cancel, abort=lambda: None):
        done = run_regenerated(
            config,
            base,
            adapter=adapter,
            execution=execution_identity(config),
            dry_run=dry_run,
            verbose=verbose,
            listeners=listeners,
            cancel=cancel,
            expected_plan_hash=expected_plan_hash,
            check_plan=check_plan,
            mismatch=lambda plan: _mismatch(plan, expected_plan_hash or "", config),
            merge_conflicts_mode=merge_conflicts,
            replan=replan,
        )
    write_reports(done.result, True, adapter)
    return ApplyOutcome(
        plan=done.plan,
        summary=done.result.summary,
        state=done.state,
        run_id=done.result.run_id,
        records=done.result.records,
        interrupted=done.result.interrupted,
        warnings=base.planned.warnings,
    )


def _checkpoint_store(
    config: RunConfig, *, dry_run: bool, resume: bool, replan: bool
) -> CheckpointStore:
    file_store = FileCheckpointStore(config.checkpoint_path)
    if not dry_run:
        if replan:
            file_store.clear()
        return file_store
    memory = MemoryCheckpointStore()  # a dry run reads the checkpoints but never writes them
    if resume and not replan:
        log = file_store.read()
        memory.log = log
    return memory
