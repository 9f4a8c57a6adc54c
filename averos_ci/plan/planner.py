"""Manifest + applied state -> ExecutionPlan.  (Being implemented; signatures are final.)"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from averos_ci.plan.model import ExecutionPlan, PlanNode, canonical_json
from averos_ci.state.model import AppliedState


@dataclass(frozen=True)
class PlanResult:
    plan: ExecutionPlan
    manifest: dict[str, Any]  # normalized manifest: what the state records after a full apply
    base_state: AppliedState | None
    warnings: tuple[str, ...] = ()  # rendered validation warnings


def args_hash(node: PlanNode) -> str:
    return hashlib.sha256(canonical_json(node.args).encode()).hexdigest()


def compute_plan(
    *, manifest_path: str | Path, state: AppliedState | None, max_bytes: int | None = None
) -> PlanResult:
    """Load + validate the manifest (raises ManifestInvalid, exit 2) and plan it against state."""
    raise NotImplementedError


def plan_manifest(manifest: dict[str, Any], state: AppliedState | None) -> PlanResult:
    """Plan an already normalized manifest against ``state``."""
    raise NotImplementedError
