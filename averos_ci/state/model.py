"""State file format (``.averos/state.json``), versioned, with an upgrade path."""

from __future__ import annotations

import hashlib
import uuid
from datetime import UTC, datetime
from typing import Any

from averos_ci._model import WireModel
from averos_ci.plan.model import canonical_json

STATE_FORMAT_VERSION = 2
EMPTY_STATE_HASH = hashlib.sha256(b"averos-ci:empty-state").hexdigest()


class NodeState(WireModel):
    args_hash: str  # sha256 of the node's canonical args when it was applied
    applied_at: str


class AppliedState(WireModel):
    format_version: int = STATE_FORMAT_VERSION
    manifest: dict[str, Any]  # the applied manifest, normalized (averos_ci.manifest.normalize)
    manifest_hash: str
    serial: int
    lineage: str
    built_at: str
    node_states: dict[str, NodeState] = {}

    def successor(
        self, *, manifest: dict[str, Any], manifest_hash: str, node_states: dict[str, NodeState]
    ) -> AppliedState:
        return AppliedState(
            manifest=manifest,
            manifest_hash=manifest_hash,
            serial=self.serial + 1,
            lineage=self.lineage,
            built_at=now_iso(),
            node_states=node_states,
        )

    @classmethod
    def first(
        cls, *, manifest: dict[str, Any], manifest_hash: str, node_states: dict[str, NodeState]
    ) -> AppliedState:
        return cls(
            manifest=manifest,
            manifest_hash=manifest_hash,
            serial=1,
            lineage=str(uuid.uuid4()),
            built_at=now_iso(),
            node_states=node_states,
        )


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def state_hash(state: AppliedState | None) -> str:
    """Identity of the base state a plan was computed against."""
    if state is None:
        return EMPTY_STATE_HASH
    return hashlib.sha256(canonical_json(state.to_wire()).encode()).hexdigest()


def upgrade(data: dict[str, Any]) -> dict[str, Any]:
    """Bring an older state document to the current format (pure; raises ValueError)."""
    if "formatVersion" not in data:  # Averos's own state.json: step 0 of the chain
        from averos_ci.state.averos_compat import averos_to_v2

        data = averos_to_v2(data)
    version = data.get("formatVersion")
    if version == 1:
        # v1 (averos-ci 0.0.x) had no serial/lineage/nodeStates.
        manifest_hash = str(data.get("manifestHash", ""))
        data = {
            "formatVersion": 2,
            "manifest": data.get("manifest"),
            "manifestHash": manifest_hash,
            "serial": 1,
            "lineage": str(uuid.uuid5(uuid.NAMESPACE_URL, "averos-ci:" + manifest_hash)),
            "builtAt": data.get("builtAt", "1970-01-01T00:00:00.000Z"),
            "nodeStates": {},
        }
    return data
