"""The ``plan`` tool: the manifest planned against the applied state, or against the manifest
at a git ref (what a pull request from here into that ref would change)."""

from __future__ import annotations

import subprocess
from typing import Any

from averos_ci.errors import InputError
from averos_ci.mcp.workspace import Workspace
from averos_ci.source import parse_document


def plan_summary(
    ws: Workspace, *, path: str | None = None, against: str = "state", project: str | None = None
) -> dict[str, Any]:
    """The plan as the CLI computes it (:func:`averos_ci.plan.command.plan_project`: the config
    checked as ``run`` checks it, the code patch when the adapter regenerates), in the JSON
    shape ``plan --format json`` writes (sensitive values masked), plus a text rendering."""
    from averos_ci.plan.command import plan_project
    from averos_ci.plan.identity import execution_identity
    from averos_ci.plan.render import render_text
    from averos_ci.plan.sensitive import mask_wire

    cfg = ws.run_config(project)
    manifest = ws.manifest(path, project=project)
    cfg = cfg.with_overrides(manifest_path=manifest)
    drift: dict[str, object] | None = None
    warnings: list[str] = list(cfg.warnings)
    if against == "state":
        base, planned = plan_project(cfg, max_bytes=ws.max_bytes)
        warnings += [*base.warnings, *planned.warnings]
        if base.drift is not None:
            drift = base.drift.to_json()
    else:
        from averos_ci.plan.planner import compute_plan

        planned = compute_plan(
            manifest_path=manifest,
            state=_state_at_ref(ws, manifest_rel=ws.relative(manifest), ref=against),
            max_bytes=ws.max_bytes,
            execution=execution_identity(cfg),
        )
        warnings += planned.warnings
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


def _state_at_ref(ws: Workspace, *, manifest_rel: str, ref: str) -> Any:
    """An applied state holding the manifest as it is at ``ref`` (``None``: not there)."""
    from averos_ci.manifest.issues import ManifestInvalid
    from averos_ci.manifest.validate import validate_document
    from averos_ci.plan.planner import plan_manifest
    from averos_ci.state.model import AppliedState

    if ref.startswith("-") or not ref.strip():
        raise InputError(f"{ref!r} is not a git ref", hint="e.g. main, origin/main, HEAD~1")
    exists = _git(ws, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")
    if exists.returncode != 0:
        raise InputError(
            f"git ref {ref!r} not found", path=ws.root, hint="fetch it, or use against='state'"
        )
    shown = _git(ws, "show", f"{ref}:{manifest_rel}")
    if shown.returncode != 0:
        return None  # the manifest is new since ref: everything is to add
    if len(shown.stdout) > ws.max_bytes:
        raise InputError(f"the manifest at {ref} is over the {ws.max_bytes}-byte limit")
    doc = parse_document(shown.stdout, path=ws.root / manifest_rel, what=f"manifest at {ref}")
    result = validate_document(doc)
    if result.manifest is None:
        raise ManifestInvalid(result.issues)
    manifest_hash = plan_manifest(result.manifest, None).plan.manifest_hash
    return AppliedState.first(manifest=result.manifest, manifest_hash=manifest_hash, node_states={})


def _git(ws: Workspace, *args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        ["git", "-C", str(ws.root), *args], capture_output=True, check=False, timeout=60
    )
