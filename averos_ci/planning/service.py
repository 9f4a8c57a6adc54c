"""Planning one project: the one way every caller plans (``plan``, ``run``, the GitHub flows,
the patch job, the catch-up, MCP and the apply itself), so that a plan shown, approved and
applied is the same plan, its code patch included.

The code patch is attached here and only here: a regenerating adapter generates the new
manifest in a scratch workspace and merges it in memory (:mod:`averos_ci.execute.regen`);
the workspace is never touched.
"""

from __future__ import annotations

import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Literal

from averos_ci.config import RunConfig
from averos_ci.errors import AverosCIError
from averos_ci.execute.adapters.identity import execution_identity
from averos_ci.execute.adapters.registry import adapter_name
from averos_ci.plan.planner import PlanResult, compute_plan
from averos_ci.planning.sources import StateSource
from averos_ci.state.guard import Planned, plan_on_base

# "off": the semantic plan only (the apply completes it itself, resumably). "changes": the
# code patch of a plan that changes something (the CI flows). "always": also the empty code
# patch of a plan without changes (local ``plan``, MCP: their planHash has always covered it).
CodePatchMode = Literal["off", "changes", "always"]


def plan_project(
    config: RunConfig,
    base_source: StateSource,
    *,
    code_patch: CodePatchMode = "changes",
    manifest_path: Path | None = None,
    fatal: bool = False,
    check: bool = False,
    max_bytes: int | None = None,
    adapter: str | None = None,
) -> Planned:
    """Plan ``manifest_path`` (default: the config's) on the state ``base_source`` gives.

    ``fatal``: a workspace that lacks the application the state describes raises (executing
    paths); plan-only paths report it in ``drift``. ``check``: refuse first what ``run`` would
    refuse in the config (:func:`averos_ci.config_check.check_config`)."""
    if check:
        from averos_ci.config_check import check_config

        check_config(config)
    manifest_path = manifest_path or config.manifest_path
    execution = execution_identity(config)
    state = base_source.load()
    if base_source.guarded:  # the adapter, then the workspace (drift repairs included)
        planned = plan_on_base(
            manifest_path=manifest_path,
            state=state,
            state_path=base_source.where,
            adapter=adapter_name(adapter or config.adapter),
            workspace_root=config.workspace_root,
            fatal=fatal,
            max_bytes=max_bytes,
            execution=execution,
        )
    else:
        result = compute_plan(
            manifest_path=manifest_path, state=state, max_bytes=max_bytes, execution=execution
        )
        planned = Planned(result, None)
    if code_patch == "off":
        return planned
    return with_code_patch(
        planned, config, base_source, manifest_path=manifest_path, mode=code_patch
    )


def code_patch_needed(config: RunConfig, planned: PlanResult, *, changes_only: bool = True) -> bool:
    """Whether the plan's code patch must be computed (the planHash then covers it): the
    adapter regenerates, there is a workspace to merge into and (``changes_only``) the plan
    changes something — exactly when the apply computes it."""
    from averos_ci.execute.adapters import adapter_options, get_adapter
    from averos_ci.execute.regen import nothing_to_merge, regenerates

    if changes_only and not planned.plan.has_changes:
        return False
    try:
        adapter = get_adapter(config.adapter, adapter_options(config))
    except AverosCIError:  # planning never needed the adapter: the apply reports it
        return False
    return regenerates(adapter) and not nothing_to_merge(planned, config)


def with_code_patch(
    planned: Planned,
    config: RunConfig,
    source: StateSource,
    *,
    manifest_path: Path | None = None,
    mode: CodePatchMode = "changes",
) -> Planned:
    """``planned`` with its code patch when it needs one (:func:`code_patch_needed`), generated
    against the pristine store beside ``source``'s state: the one place a code patch is
    attached to a plan (the apply's own generation aside, :mod:`averos_ci.execute.regen.run`).
    """
    from averos_ci.execute.adapters import adapter_options, get_adapter
    from averos_ci.execute.regen import plan_patch

    manifest_path = manifest_path or config.manifest_path
    if mode == "off" or not code_patch_needed(
        config, planned.planned, changes_only=mode == "changes"
    ):
        return planned
    with (
        source.state_file() as state_path,
        tempfile.TemporaryDirectory(prefix="averos-ci-plan-") as tmp,
    ):
        if state_path is None:  # no pristine store to generate against: the plan as it is
            return planned
        same = (state_path, manifest_path) == (config.state_path, config.manifest_path)
        cfg = config.with_overrides(state_path=state_path, manifest_path=manifest_path)
        cfg = config if same else cfg
        pp = plan_patch(
            planned.planned,
            config=cfg,
            adapter=get_adapter(cfg.adapter, adapter_options(cfg)),
            execution=execution_identity(cfg),
            # a read-only source (an exported state branch) generates in a scratch folder and
            # leaves its store unwritten; a local state keeps the generation for ``run``
            scratch=Path(tmp) if source.read_only else None,
        )
    return replace(planned, planned=pp.planned, semantic=planned.planned, patch=pp.patch)
