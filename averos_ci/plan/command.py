"""``averos-ci plan``: plan the manifest against the applied state and render it."""

from __future__ import annotations

import itertools
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from averos_ci._fs import atomic_write_chunks
from averos_ci.errors import ExitCode, InputError

if TYPE_CHECKING:
    from averos_ci.config import RunConfig
    from averos_ci.plan.model import ExecutionPlan
    from averos_ci.plan.planner import PlanResult
    from averos_ci.state.guard import Base


def plan_command(
    *,
    config: Path | None = None,
    manifest: Path | None = None,
    state: Path | None = None,
    output_format: str | None = None,
    out: Path | None = None,
    detailed_exitcode: bool = False,
    max_bytes: int | None = None,
    policy: bool = False,
) -> int:
    """Print (or write) the plan. Exit 0 when planned (errors raise, with their own codes).
    With ``policy``, a policy violation raises (exit 1) after the plan and its policy section
    are printed. ``output_format`` defaults to ``json`` for an ``out`` file named ``*.json``
    (the saved plan ``run --plan`` executes), else ``text``.

    ``detailed_exitcode``: 0 no changes, 4 changes present, 5 conflicts (the plan cannot be
    applied — the code ``run`` and ``github apply`` give it too). Errors keep their codes
    (2 invalid input or usage, 3 internal), so "changes" is never mistaken for an error.
    """
    from averos_ci.plan.planner import no_cyclic_gc

    if output_format is None:
        output_format = "json" if out is not None and out.suffix.lower() == ".json" else "text"
    # No cyclic collection from reading the manifest to writing the plan (planner.py says
    # why); the plan is dropped inside: objects still alive when the collector comes back are
    # all scanned by its next pass (a second or more on a large plan).
    with no_cyclic_gc():
        plan = _plan_and_write(
            config=config,
            manifest=manifest,
            state=state,
            output_format=output_format,
            out=out,
            max_bytes=max_bytes,
            policy=policy,
        )
        code = _exit_code(plan, detailed=detailed_exitcode)
        del plan
    return code


def _exit_code(plan: ExecutionPlan, *, detailed: bool) -> int:
    if not detailed:
        return int(ExitCode.OK)
    if not plan.applicable:
        return int(ExitCode.CONFLICTS)
    return int(ExitCode.CHANGES if plan.has_changes else ExitCode.OK)


def _print_coloured(plan: ExecutionPlan) -> None:
    """create/update/remove in colour on a terminal (rich honours NO_COLOR)."""
    from rich.console import Console

    from averos_ci.plan.render import render_rich

    Console(file=sys.stdout, highlight=False).print(render_rich(plan), end="", soft_wrap=True)


def _with_code_patch(planned: PlanResult, cfg: RunConfig) -> PlanResult:
    """The plan with its code patch when the adapter regenerates (averos_ci.execute.regen):
    generation in a scratch workspace, merged in memory; the workspace is not touched."""
    from averos_ci.errors import AverosCIError
    from averos_ci.execute.adapters import adapter_options, get_adapter
    from averos_ci.execute.regen import nothing_to_merge, plan_patch, regenerates
    from averos_ci.plan.identity import execution_identity

    try:
        adapter = get_adapter(cfg.adapter, adapter_options(cfg))
    except AverosCIError:  # planning never needed the adapter: ``run`` reports it
        return planned
    if not regenerates(adapter) or nothing_to_merge(planned, cfg):
        return planned
    execution = execution_identity(cfg)
    return plan_patch(planned, config=cfg, adapter=adapter, execution=execution).planned


def project_base(cfg: RunConfig, *, fatal: bool = False, max_bytes: int | None = None) -> Base:
    """The plan of one project on its recorded state's base (drift, warnings), without the code
    patch: what the CI plan job posts first. ``fatal``: see
    :func:`averos_ci.state.guard.plan_on_base`."""
    from averos_ci.plan.identity import execution_identity
    from averos_ci.state import FileStateStore
    from averos_ci.state.guard import plan_on_base

    return plan_on_base(
        manifest_path=cfg.manifest_path,
        state=FileStateStore(cfg.state_path).load(),
        state_path=cfg.state_path,
        adapter=cfg.adapter,
        workspace_root=cfg.workspace_root,
        fatal=fatal,
        max_bytes=max_bytes,
        execution=execution_identity(cfg),
    )


def plan_project(cfg: RunConfig, *, max_bytes: int | None = None) -> tuple[Base, PlanResult]:
    """The plan of one project against its recorded state, as ``averos-ci plan`` computes it:
    the config checked as ``run`` checks it, the plan on the state's base, and the code patch
    when the adapter regenerates. Returns the base (drift, warnings) and the result."""
    from averos_ci.config_check import check_config

    check_config(cfg)  # what `run` would refuse fails the plan, the same way
    base = project_base(cfg, max_bytes=max_bytes)
    return base, _with_code_patch(base.planned, cfg)


def _plan_and_write(
    *,
    config: Path | None,
    manifest: Path | None,
    state: Path | None,
    output_format: str,
    out: Path | None,
    max_bytes: int | None,
    policy: bool = False,
) -> ExecutionPlan:
    from averos_ci.config import load_config
    from averos_ci.plan.render import RENDERERS, json_pieces
    from averos_ci.state.drift import render_drift

    cfg = load_config(config, required=config is not None or manifest is None)
    cfg = cfg.with_overrides(manifest_path=manifest, state_path=state)
    for warning in cfg.warnings:
        print(warning, file=sys.stderr)
    base, result = plan_project(cfg, max_bytes=max_bytes)
    for warning in (*base.warnings, *result.warnings):
        print(warning, file=sys.stderr)
    verdict = None
    if policy or cfg.policy is not None:
        from averos_ci.policy.check import check_policy

        verdict = check_policy(result.plan, cfg=cfg)
    section = verdict.section(output_format) if verdict is not None else ""
    if output_format == "text" and out is None and sys.stdout.isatty():
        _print_coloured(result.plan)
        sys.stdout.write(section)
    elif out is not None:
        # JSON in pieces: a large plan's text would otherwise be held whole, twice (text, bytes)
        pieces = (
            json_pieces(result.plan)
            if output_format == "json"
            else iter((RENDERERS[output_format](result.plan),))
        )
        try:
            atomic_write_chunks(out, (p.encode() for p in itertools.chain(pieces, (section,))))
        except OSError as exc:
            raise InputError(f"cannot write the plan: {exc.strerror}", path=out) from None
    else:
        sys.stdout.write(RENDERERS[output_format](result.plan) + section)
    if not result.plan.applicable:
        print("warning: the plan has conflicts and cannot be applied", file=sys.stderr)
    if base.drift is not None and (
        base.drift.has_drift or base.drift.modified or base.drift.deleted
    ):
        sys.stderr.write(render_drift(base.drift))
    if verdict is not None:
        verdict.report(fail=policy)
    return result.plan
