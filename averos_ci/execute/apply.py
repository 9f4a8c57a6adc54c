"""``apply``: config -> plan -> run -> reports -> new applied state. The library side of
``averos-ci run``."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from averos_ci.config import RunConfig
from averos_ci.errors import InputError, PlanConflicts
from averos_ci.execute.adapters import adapter_options, get_adapter
from averos_ci.execute.averos_logs import (
    AverosExecutionLog,
    write_execution_plan,
    write_summary_text,
)
from averos_ci.execute.base import MOCK_ADAPTER, MOCK_NOTICE, announce_base, record_workspace
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
from averos_ci.plan.identity import execution_identity
from averos_ci.plan.model import Action, ExecutionPlan
from averos_ci.plan.planner import PlanResult, args_hash
from averos_ci.state import AppliedState, FileStateStore, NodeState
from averos_ci.state.fingerprint import adapter_record
from averos_ci.state.guard import Base, plan_on_base
from averos_ci.state.model import now_iso

SUMMARY_FILE_NAME = "summary.json"


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


def apply(
    config: RunConfig,
    *,
    resume: bool = False,
    replan: bool = False,
    dry_run: bool = False,
    verbose: bool = False,
    junit: Path | None = None,
    summary_md: Path | None = None,
    summary_json: Path | None = None,
    listeners: Sequence[RunnerEventListener] = (),
    adapter: ExecutionAdapter | None = None,
    cancel: CancelToken | None = None,
    expected_plan_hash: str | None = None,
    check_plan: Callable[[ExecutionPlan], None] | None = None,
    merge_conflicts: str = "refuse",
) -> ApplyOutcome:
    """Plan ``config``'s manifest against the stored state and execute it.

    ``expected_plan_hash``: execute only that plan (the approved one); any other plan —
    another manifest, state or execution setting — raises :class:`PlanMismatch` before
    anything runs. ``check_plan``: called with the plan computed now, before anything runs
    (a saved plan compares it with the file); it raises to refuse.

    An adapter that regenerates (averos_ci.execute.regen) generates the new manifest in a
    scratch workspace and merges it three-way into the workspace; the plan carries the code
    patch. ``merge_conflicts``: ``"refuse"`` (exit 5, nothing written) or ``"markers"`` (git
    conflict markers written into the conflicting files).

    Interruption (signal, ``timeoutMs``) and node failures are *returned* (see
    ``outcome.interrupted`` / ``outcome.summary.success``); bad input raises an InputError.
    """
    for report in (junit, summary_md, summary_json):
        if report is not None:
            _check_writable(report)
    state_store = FileStateStore(config.state_path)
    adapter_name = adapter.name if adapter is not None else config.adapter
    base = plan_on_base(  # refuses another adapter's state and a workspace lacking the app
        manifest_path=config.manifest_path,
        state=state_store.load(),
        state_path=config.state_path,
        adapter=adapter_name,
        workspace_root=config.workspace_root,
        execution=execution_identity(config),
    )
    planned = base.planned
    plan = planned.plan
    adapter = adapter or get_adapter(config.adapter, adapter_options(config))
    # Nothing to change, nothing to generate: a regenerating adapter's clean generation of an
    # unchanged manifest is the pristine tree already recorded, so the run is the ordinary
    # zero-node run and the state is left as it is (running a run twice changes nothing).
    announce_base(base, adapter_name, generates=regenerates(adapter))
    if regenerates(adapter) and plan.has_changes:
        return _apply_regenerated(
            config,
            base,
            adapter=adapter,
            dry_run=dry_run,
            verbose=verbose,
            reports=(junit, summary_md, summary_json),
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
            write_execution_plan(config.logs_dir, plan, warnings=planned.warnings)
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
            _write_reports(
                result,
                adapter=adapter_name,
                config=config,
                dry_run=dry_run,
                junit=junit,
                summary_md=summary_md,
                summary_json=summary_json,
            )
        except OSError as exc:  # paths were checked up front: a full disk, a vanished folder
            raise InputError(
                f"a report could not be written: {exc.strerror}",
                path=exc.filename,
                hint="the run's checkpoints are kept: fix the path and run again with --resume "
                "to record the applied state and write the reports",
            ) from None
        state = planned.base_state
        if success:  # after the reports: a crash in between is finished by --resume
            state = _record_success(planned, store, state_store, config=config, adapter=adapter)
    return ApplyOutcome(
        plan=plan,
        summary=result.summary,
        state=state,
        run_id=result.run_id,
        records=result.records,
        interrupted=result.interrupted,
        warnings=planned.warnings,
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
    base: Base,
    *,
    adapter: ExecutionAdapter,
    dry_run: bool,
    verbose: bool,
    reports: tuple[Path | None, Path | None, Path | None],
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
    junit, summary_md, summary_json = reports
    _write_reports(
        done.result,
        adapter=adapter.name,
        config=config,
        dry_run=dry_run,
        junit=junit,
        summary_md=summary_md,
        summary_json=summary_json,
        generated=True,
    )
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


def _record_success(
    planned: PlanResult,
    store: CheckpointStore,
    state_store: FileStateStore,
    *,
    config: RunConfig,
    adapter: ExecutionAdapter,
) -> AppliedState | None:
    plan, base = planned.plan, planned.base_state
    record = adapter_record(adapter, config.adapter_options)
    if not plan.has_changes and base is not None and base.adapter == record:
        store.clear()
        return base
    workspace = record_workspace(planned, store.load(), config.workspace_root)
    applied_at = now_iso()
    previous = base.node_states if base is not None else {}
    node_states = {
        n.id: (
            previous[n.id]
            if n.action is Action.SKIP and n.id in previous
            else NodeState(args_hash=args_hash(n), applied_at=applied_at)
        )
        for n in plan.nodes
    }
    if base is not None:
        state = base.successor(
            manifest=planned.manifest,
            manifest_hash=plan.manifest_hash,
            node_states=node_states,
            adapter=record,
            workspace=workspace,
        )
    else:
        state = AppliedState.first(
            manifest=planned.manifest,
            manifest_hash=plan.manifest_hash,
            node_states=node_states,
            adapter=record,
            workspace=workspace,
        )
    state_store.save(state)
    store.clear()
    return state


def _check_writable(path: Path) -> None:
    """Refuse an unusable report path before anything runs, not after the work is done."""
    parent = path.parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot create the report's folder: {exc.strerror}", path=path) from None
    if path.is_dir() or not os.access(parent, os.W_OK):
        raise InputError("the report file cannot be written here", path=path)


def _write_reports(
    result: RunResult,
    *,
    adapter: str,
    config: RunConfig,
    dry_run: bool,
    junit: Path | None,
    summary_md: Path | None,
    summary_json: Path | None,
    generated: bool = False,
) -> None:
    from averos_ci.report import (
        append_step_summary,
        summary_markdown,
        write_junit,
        write_markdown,
        write_summary_json,
    )

    if not dry_run:
        write_summary_json(config.logs_dir / SUMMARY_FILE_NAME, result.summary, adapter=adapter)
        write_summary_text(config.logs_dir, result.summary, result.records)
    if summary_json is not None:
        write_summary_json(summary_json, result.summary, adapter=adapter)
    if junit is not None:
        stamp = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S")
        write_junit(junit, result.records, timestamp=stamp)
    text = summary_markdown(
        result.summary,
        result.records,
        plan_hash=result.plan_hash,
        run_id=result.run_id,
        interrupted=result.interrupted,
        title="averos-ci run (dry run)" if dry_run else "averos-ci run",
    )
    if adapter == MOCK_ADAPTER and not generated:
        head, _, rest = text.partition("\n")
        text = f"{head}\n\n> {MOCK_NOTICE}\n{rest}"
    if summary_md is not None:
        write_markdown(summary_md, text)
    append_step_summary(text)
