"""The ``plan`` tool: the manifest planned against the applied state, or against the manifest
at a git ref (what a pull request from here into that ref would change)."""

from __future__ import annotations

from typing import Any

from averos_ci.mcp.workspace import Workspace


def plan_summary(
    ws: Workspace, *, path: str | None = None, against: str = "state", project: str | None = None
) -> dict[str, Any]:
    """The plan as the CLI computes it (:func:`averos_ci.planning.plan_project`: the config
    checked as ``run`` checks it, the code patch when the adapter regenerates), in the JSON
    shape ``plan --format json`` writes (sensitive values masked), plus a text rendering."""
    from averos_ci.plan.render import render_text
    from averos_ci.plan.sensitive import mask_wire
    from averos_ci.planning import FileState, RefState, StateSource, plan_project

    cfg = ws.run_config(project)
    manifest = ws.manifest(path, project=project)
    cfg = cfg.with_overrides(manifest_path=manifest)
    warnings: list[str] = list(cfg.warnings)
    source: StateSource = FileState(cfg.state_path)
    if against != "state":
        source = RefState(ws.root, ws.relative(manifest), against, ws.max_bytes)
    result = plan_project(
        cfg,
        source,
        code_patch="always",
        check=against == "state",
        max_bytes=ws.max_bytes,
    )
    planned = result.planned
    warnings += [*result.warnings, *planned.warnings]
    drift = result.drift.to_json() if result.drift is not None else None
    plan = planned.plan
    wire = mask_wire(plan.to_wire())
    policy = None
    if cfg.policy is not None:  # what the PR's policy gate will say, before it is proposed
        from averos_ci.policy.check import check_policy

        policy = check_policy(plan, cfg=cfg).result.to_wire()
    return {
        "manifest": ws.relative(manifest),
        "against": against,
        "planHash": plan.plan_hash,
        "applicable": plan.applicable,
        "hasChanges": plan.has_changes,
        "counts": wire["counts"],
        "diff": wire["diff"],
        "changedNodes": [
            {"id": n.id, "action": n.action.value, "command": n.command}
            for n in plan.executable_nodes()
        ],
        "text": render_text(plan),
        "drift": drift,
        "policy": policy,
        "warnings": warnings,
        "codePatch": _patch_summary(wire.get("codePatch")),
    }


def _patch_summary(patch: Any) -> list[dict[str, Any]] | None:
    """The code change per file, without the diffs (``plan --format json`` has them)."""
    if not isinstance(patch, dict):
        return None
    keep = ("path", "status", "added", "removed", "oldPath", "merged", "conflict")
    return [{k: f[k] for k in keep if k in f} for f in patch.get("files", [])]
