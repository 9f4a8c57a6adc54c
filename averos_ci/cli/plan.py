"""``averos-ci plan``: plan the manifest against the applied state (through the planning
service, :func:`averos_ci.planning.plan_project`) and print or write it."""

from __future__ import annotations

import itertools
import sys
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from averos_ci._fs import atomic_write_chunks
from averos_ci.cli._app import app
from averos_ci.errors import ExitCode, InputError

if TYPE_CHECKING:
    from averos_ci.plan.model import ExecutionPlan


class PlanFormat(StrEnum):
    TEXT = "text"
    MARKDOWN = "markdown"
    JSON = "json"


@app.command()
def plan(
    config: Annotated[
        Path | None, typer.Option(help="Config file (default: ./averos.config.json).")
    ] = None,
    manifest: Annotated[
        Path | None, typer.Option(help="Manifest to plan (overrides manifestPath).")
    ] = None,
    state: Annotated[
        Path | None, typer.Option(help="Applied-state file (overrides statePath).")
    ] = None,
    output_format: Annotated[
        PlanFormat | None,
        typer.Option(
            "--format",
            help="text, markdown (PR comment / job summary) or json "
            "(default: json for --out FILE.json, else text).",
        ),
    ] = None,
    out: Annotated[Path | None, typer.Option(help="Write the plan to FILE (atomically).")] = None,
    detailed_exitcode: Annotated[
        bool,
        typer.Option(
            "--detailed-exitcode",
            help="Exit 0 no changes, 4 changes present, 5 conflicts (errors: 2, 3).",
        ),
    ] = False,
    max_bytes: Annotated[
        int | None,
        typer.Option(help="Refuse manifests larger than this many bytes (default 10 MiB).", min=1),
    ] = None,
    policy: Annotated[
        bool,
        typer.Option("--policy", help="Check the config's 'policy': exit 1 on a violation."),
    ] = False,
    diff: Annotated[
        bool,
        typer.Option(
            "--diff",
            help="Print the code change as one git-style unified diff instead of the plan "
            "(pipe it into delta or 'git apply --check').",
        ),
    ] = False,
) -> int:
    """Show what `run` would do (dry run): the semantic diff and the execution plan."""
    return plan_command(
        config=config,
        manifest=manifest,
        state=state,
        output_format=output_format.value if output_format else None,
        out=out,
        detailed_exitcode=detailed_exitcode,
        max_bytes=max_bytes,
        policy=policy,
        diff=diff,
    )


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
    diff: bool = False,
) -> int:
    """Print (or write) the plan (``diff``: its code change, as one unified diff). Exit 0
    when planned (errors raise, with their own codes).
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
            diff=diff,
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


def _plan_and_write(
    *,
    config: Path | None,
    manifest: Path | None,
    state: Path | None,
    output_format: str,
    out: Path | None,
    max_bytes: int | None,
    policy: bool = False,
    diff: bool = False,
) -> ExecutionPlan:
    from averos_ci.config import load_config
    from averos_ci.plan.render import RENDERERS, json_pieces
    from averos_ci.planning import FileState, plan_project
    from averos_ci.state.drift import render_drift

    cfg = load_config(config, required=config is not None or manifest is None)
    cfg = cfg.with_overrides(manifest_path=manifest, state_path=state)
    for warning in cfg.warnings:
        print(warning, file=sys.stderr)
    planned = plan_project(
        cfg, FileState(cfg.state_path), code_patch="always", check=True, max_bytes=max_bytes
    )
    result = planned.planned
    for warning in (*planned.warnings, *result.warnings):
        print(warning, file=sys.stderr)
    verdict = None
    if policy or cfg.policy is not None:
        from averos_ci.policy.check import check_policy

        verdict = check_policy(result.plan, cfg=cfg)
    section = verdict.section(output_format) if verdict is not None else ""
    if diff:  # the diff alone on stdout (or in the file): nothing else may reach a pipe
        from averos_ci.plan.patch_render import git_diff

        patch = result.plan.code_patch
        text = git_diff(patch) if patch else ""
        _write(out, text)
        if not text:
            print("no code change: the adapter does not regenerate, or none", file=sys.stderr)
    elif output_format == "text" and out is None and sys.stdout.isatty():
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
    if diff and not result.plan.code_patch:
        print(
            "no code change: the adapter does not regenerate, or nothing changes", file=sys.stderr
        )
    if not result.plan.applicable:
        print("warning: the plan has conflicts and cannot be applied", file=sys.stderr)
    drift = planned.drift
    if drift is not None and (drift.has_drift or drift.modified or drift.deleted):
        sys.stderr.write(render_drift(drift))
    if verdict is not None:
        verdict.report(fail=policy)
    return result.plan


def _write(out: Path | None, text: str) -> None:
    if out is None:
        sys.stdout.write(text)
        return
    try:
        atomic_write_chunks(out, iter((text.encode(),)))
    except OSError as exc:
        raise InputError(f"cannot write the plan: {exc.strerror}", path=out) from None
