"""``averos-ci plan``: plan the manifest against the applied state and render it."""

from __future__ import annotations

import sys
from pathlib import Path

from averos_ci._fs import atomic_write_text
from averos_ci.errors import AverosCIError, ExitCode, InputError


def plan_command(
    *,
    config: Path | None = None,
    manifest: Path | None = None,
    state: Path | None = None,
    output_format: str = "text",
    out: Path | None = None,
    detailed_exitcode: bool = False,
    max_bytes: int | None = None,
) -> int:
    """Print (or write) the plan. Exit: 0 ok; with ``detailed_exitcode`` 0 none / 2 changes / 1
    error (Terraform's convention)."""
    try:
        changes = _plan_and_write(
            config=config,
            manifest=manifest,
            state=state,
            output_format=output_format,
            out=out,
            max_bytes=max_bytes,
        )
    except AverosCIError as exc:
        if not detailed_exitcode:
            raise
        print(f"error: {exc}", file=sys.stderr)
        return int(ExitCode.FAILED)
    if detailed_exitcode:
        return 2 if changes else 0
    return 0


def _plan_and_write(
    *,
    config: Path | None,
    manifest: Path | None,
    state: Path | None,
    output_format: str,
    out: Path | None,
    max_bytes: int | None,
) -> bool:
    from averos_ci.config import load_config
    from averos_ci.plan.planner import compute_plan
    from averos_ci.plan.render import RENDERERS
    from averos_ci.state import FileStateStore

    cfg = load_config(config, required=config is not None or manifest is None)
    cfg = cfg.with_overrides(manifest_path=manifest, state_path=state)
    for warning in cfg.warnings:
        print(warning, file=sys.stderr)
    result = compute_plan(
        manifest_path=cfg.manifest_path,
        state=FileStateStore(cfg.state_path).load(),
        max_bytes=max_bytes,
    )
    for warning in result.warnings:
        print(warning, file=sys.stderr)
    text = RENDERERS[output_format](result.plan)
    if out is not None:
        try:
            atomic_write_text(out, text)
        except OSError as exc:
            raise InputError(f"cannot write the plan: {exc.strerror}", path=out) from None
    else:
        sys.stdout.write(text)
    if not result.plan.applicable:
        print("warning: the plan has conflicts and cannot be applied", file=sys.stderr)
    return result.plan.has_changes or bool(result.plan.diff.conflicts)
