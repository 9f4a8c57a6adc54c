"""``averos-ci run`` (also ``averos run``): apply the plan through the configured adapter."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from averos_ci.cli._app import app


class Mode(StrEnum):  # mirrors averos_ci._model.RunMode without importing pydantic at start-up
    STRICT = "strict"
    RESILIENT = "resilient"


class MergeConflicts(StrEnum):
    REFUSE = "refuse"
    MARKERS = "markers"


@app.command()
def run(
    config: Annotated[
        Path | None, typer.Option(help="Config file (default: ./averos.config.json).")
    ] = None,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Per-node progress.")] = False,
    resume: Annotated[
        bool, typer.Option("--resume", help="Continue the checkpointed run of this plan.")
    ] = False,
    replan: Annotated[
        bool, typer.Option("--replan", help="Discard existing checkpoints and start over.")
    ] = False,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Ask the adapter for a dry run; write no state.")
    ] = False,
    junit: Annotated[Path | None, typer.Option(help="Write JUnit XML to FILE.")] = None,
    summary_md: Annotated[
        Path | None, typer.Option(help="Write job-summary markdown to FILE.")
    ] = None,
    summary_json: Annotated[
        Path | None, typer.Option(help="Write the RunnerSummary JSON to FILE.")
    ] = None,
    adapter: Annotated[str | None, typer.Option(help="Adapter name (overrides adapter).")] = None,
    mode: Annotated[Mode | None, typer.Option(help="strict or resilient.")] = None,
    timeout_ms: Annotated[
        int | None, typer.Option(min=1, help="Bound the whole run (overrides timeoutMs).")
    ] = None,
    max_attempts: Annotated[
        int | None, typer.Option(min=1, max=100, help="Attempts per node (maxAttempts).")
    ] = None,
    concurrency: Annotated[
        int | None, typer.Option(min=1, max=64, help="Nodes run in parallel (default 1).")
    ] = None,
    manifest: Annotated[Path | None, typer.Option(help="Overrides manifestPath.")] = None,
    state: Annotated[Path | None, typer.Option(help="Overrides statePath.")] = None,
    plan: Annotated[
        Path | None,
        typer.Option(help="Execute exactly this saved plan (averos-ci plan --out FILE.json)."),
    ] = None,
    merge_conflicts: Annotated[
        MergeConflicts,
        typer.Option(
            help="Merge conflicts with your edits (regenerating adapters): refuse (exit 5, "
            "nothing written) or write git conflict markers into the files.",
        ),
    ] = MergeConflicts.REFUSE,
    expect_plan_hash: Annotated[
        str | None,
        typer.Option(help="Execute only this plan (the approved planHash); refuse any other."),
    ] = None,
) -> int:
    """Execute the plan: checkpointed, resumable, with events, summary and JUnit."""
    import sys

    from averos_ci._model import RunMode
    from averos_ci.config import load_config
    from averos_ci.config_check import check_config
    from averos_ci.errors import Interrupted, RunFailed
    from averos_ci.execute.adapters import with_adapter_named
    from averos_ci.execute.hints import run_failure_hint
    from averos_ci.planning import apply

    cfg = with_adapter_named(load_config(config, required=config is not None)).with_overrides(
        adapter=adapter, mode=RunMode(mode) if mode else None, timeout_ms=timeout_ms,
        max_attempts=max_attempts, concurrency=concurrency, manifest_path=manifest,
        state_path=state,
    )  # fmt: skip
    for warning in cfg.warnings:
        print(warning, file=sys.stderr)
    check_config(cfg)  # the check `plan` makes: what fails here failed the plan too
    if plan is not None:
        from averos_ci.planning.saved_plan import apply_saved_plan

        outcome = apply_saved_plan(
            cfg, plan_path=plan, resume=resume, replan=replan, dry_run=dry_run, verbose=verbose,
            junit=junit, summary_md=summary_md, summary_json=summary_json,
            merge_conflicts=merge_conflicts.value,
        )  # fmt: skip
    else:
        outcome = apply(
            cfg, resume=resume, replan=replan, dry_run=dry_run, verbose=verbose, junit=junit,
            summary_md=summary_md, summary_json=summary_json, expected_plan_hash=expect_plan_hash,
            merge_conflicts=merge_conflicts.value,
        )  # fmt: skip
    for warning in outcome.warnings:
        print(warning, file=sys.stderr)
    s = outcome.summary
    if outcome.interrupted:
        saved = "nothing was written (dry run)" if dry_run else "progress is checkpointed"
        raise Interrupted(
            f"run interrupted: {outcome.interrupted}; {s.succeeded}/{s.total} nodes done, {saved}",
            path=None if dry_run else cfg.checkpoint_path,
            hint=None if dry_run else "run the same command again with --resume",
        )
    if not s.success:
        first = s.failures[0] if s.failures else None
        detail = f"; first: {first.node_id}: {first.failure.message}" if first else ""
        raise RunFailed(
            f"run failed: {s.failed} failed, {s.skipped} skipped, {s.cancelled} cancelled "
            f"of {s.total}{detail}",
            hint=run_failure_hint(s, logs_dir=cfg.logs_dir),
        )
    from averos_ci.execute.console import next_step_line

    last = None if dry_run else next_step_line(
        adapter=cfg.adapter, workspace_root=cfg.workspace_root, config=config
    )  # fmt: skip
    if last is not None:
        print(last)
    return 0
