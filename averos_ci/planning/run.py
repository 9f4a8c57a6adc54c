"""``apply``: config -> plan (through the planning service) -> run -> reports -> new applied
state. The library side of ``averos-ci run``; the execution itself is
:func:`averos_ci.execute.apply.execute_planned`, which never plans."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path

from averos_ci.config import RunConfig
from averos_ci.errors import InputError
from averos_ci.execute.adapters import adapter_notice
from averos_ci.execute.apply import ApplyOutcome, execute_planned
from averos_ci.execute.averos_logs import write_summary_text
from averos_ci.execute.contracts import CancelToken, ExecutionAdapter
from averos_ci.execute.events import RunnerEventListener
from averos_ci.execute.runner import RunResult
from averos_ci.plan.model import ExecutionPlan
from averos_ci.planning.service import plan_project
from averos_ci.planning.sources import FileState
from averos_ci.state.guard import Planned

SUMMARY_FILE_NAME = "summary.json"


def apply(
    config: RunConfig,
    *,
    planned: Planned | None = None,
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
    """Plan ``config``'s manifest against its state file and execute it.

    ``planned``: the plan the caller already computed through :func:`plan_project` on this
    very state (a CI step that just checked it); not planned again. ``expected_plan_hash``:
    execute only that plan (the approved one); any other plan — another manifest, state or
    execution setting — raises :class:`~averos_ci.execute.apply.PlanMismatch` before anything
    runs. ``check_plan``: called with the plan before anything runs; it raises to refuse.

    An adapter that regenerates (averos_ci.execute.regen) generates the new manifest in a
    scratch workspace and merges it three-way into the workspace; the plan carries the code
    patch. ``merge_conflicts``: ``"refuse"`` (exit 5, nothing written) or ``"markers"``.

    Interruption (signal, ``timeoutMs``) and node failures are *returned* (see
    ``outcome.interrupted`` / ``outcome.summary.success``); bad input raises an InputError.
    """
    for report in (junit, summary_md, summary_json):
        if report is not None:
            _check_writable(report)
    if planned is None:  # refuses another adapter's state and a workspace lacking the app
        planned = plan_project(
            config,
            FileState(config.state_path),
            code_patch="off",  # a regenerating adapter's apply generates it, checkpointed
            fatal=True,
            adapter=adapter.name if adapter is not None else None,
        )

    refuse_unresolved(planned, config)

    def write_reports(result: RunResult, generated: bool, ran: ExecutionAdapter) -> None:
        _write_reports(
            result,
            adapter=ran.name,
            notice=None if generated else adapter_notice(ran),
            config=config,
            dry_run=dry_run,
            reports=(junit, summary_md, summary_json),
        )

    return execute_planned(
        config,
        planned,
        write_reports=write_reports,
        resume=resume,
        replan=replan,
        dry_run=dry_run,
        verbose=verbose,
        listeners=listeners,
        adapter=adapter,
        cancel=cancel,
        expected_plan_hash=expected_plan_hash,
        check_plan=check_plan,
        merge_conflicts=merge_conflicts,
    )


def refuse_unresolved(planned: Planned, config: RunConfig) -> None:
    """Refuse (exit 5) a workspace whose edited generated files still hold conflict markers:
    it does not compile, and a merge into it would nest markers (a run without changes too)."""
    from averos_ci.execute.regen.markers import UnresolvedMarkers, find_markers

    drift = planned.drift
    found = find_markers(config.workspace_root, drift.modified) if drift is not None else ()
    if found:
        raise UnresolvedMarkers.of(found, what="nothing was run")


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
    reports: tuple[Path | None, Path | None, Path | None],
    notice: str | None,
) -> None:
    from averos_ci.report import (
        append_step_summary,
        summary_markdown,
        write_junit,
        write_markdown,
        write_summary_json,
    )

    junit, summary_md, summary_json = reports
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
    if notice is not None:  # under the heading, as the console said it before the run
        head, _, rest = text.partition("\n")
        text = f"{head}\n\n> {notice}\n{rest}"
    if summary_md is not None:
        write_markdown(summary_md, text)
    append_step_summary(text)
