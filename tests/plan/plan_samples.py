"""Helpers for the plan tests: raw manifests in, plans out (through the real validator)."""

from __future__ import annotations

import copy
import json
import tempfile
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML

from averos_ci.manifest import load_manifest
from averos_ci.plan import ExecutionPlan, plan_manifest
from averos_ci.state import AppliedState
from tests.conftest import EXAMPLE_DIR, GOLDEN_MANIFEST

EXAMPLE_MANIFEST = EXAMPLE_DIR / "todoapp.manifest.yaml"


def example_raw() -> dict[str, Any]:
    """The ToDo example as a plain dict (flat canonical form)."""
    data: dict[str, Any] = YAML(typ="safe", pure=True).load(EXAMPLE_MANIFEST.read_text())
    return data


def flagged_raw() -> dict[str, Any]:
    """The ToDo example with two settings the Angular adapter cannot apply (issue 41 made
    every setting of the example itself take effect): a default provider without
    authentication, and an ``unauthorizedRedirect`` 1.4.1's error interceptor pre-empts."""
    data = example_raw()
    data["defaultAuthenticationProvider"] = "jwt"
    data["httpAuthConfig"] = {"name": "H", "unauthorizedRedirect": "/denied"}
    return data


def golden_raw() -> dict[str, Any]:
    """The golden designer export's ``averosApplication`` (flat form)."""
    data: dict[str, Any] = json.loads(GOLDEN_MANIFEST.read_text(encoding="utf-8"))
    return copy.deepcopy(data["project"]["averosApplication"])


def normalized(raw: dict[str, Any]) -> dict[str, Any]:
    """Validate + normalize a raw manifest through a real file (raises ManifestInvalid)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "m.manifest.json"
        path.write_text(json.dumps(raw), encoding="utf-8")
        manifest, _ = load_manifest(path)
    return manifest


def applied(raw: dict[str, Any], *, serial: int = 1) -> AppliedState:
    """A fixed (reproducible) state recording ``raw`` as applied."""
    from averos_ci.plan.planner import sha256_json

    manifest = normalized(raw)
    return AppliedState(
        manifest=manifest,
        manifest_hash=sha256_json(manifest),
        serial=serial,
        lineage="00000000-0000-4000-8000-000000000000",
        built_at="2026-01-01T00:00:00.000Z",
    )


def plan_of(
    raw: dict[str, Any],
    state: AppliedState | None = None,
    *,
    execution: dict[str, Any] | None = None,
) -> ExecutionPlan:
    return plan_manifest(normalized(raw), state, execution=execution).plan


def actions(plan: ExecutionPlan) -> dict[str, str]:
    return {n.id: n.action.value for n in plan.nodes}
