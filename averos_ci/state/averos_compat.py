"""Averos's own ``.averos/state.json`` → averos-ci's state format 2 (the first upgrade step).

Averos (``@averos/executor``'s ``FileStateStore``) writes ``{manifest, builtAt, nodeStates:
{nodeId: {state, lastRunAt?, error?}}}`` with no ``formatVersion``; ``manifest`` is the
manifest as the user wrote it. Averos's planner diffs the new manifest against that one
(``nodeStates`` is informational), so averos-ci does the same: the manifest is validated and
normalized like a manifest file, and becomes the applied manifest. A project switching from
Averos therefore plans only what changed since its last Averos run.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from pathlib import Path
from typing import Any

from averos_ci.plan.canonical import canonical_json

AVEROS_NODE_STATES = frozenset({"SUCCESS", "FAILED", "SKIPPED", "CANCELLED", "PENDING", "RUNNING"})
_EPOCH = "1970-01-01T00:00:00.000Z"


class StateShapeError(ValueError):
    """Neither an averos-ci state nor Averos's; ``pointer`` says where (JSON pointer)."""

    def __init__(self, message: str, pointer: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.pointer = pointer


def is_averos_state(data: dict[str, Any]) -> bool:
    return "formatVersion" not in data and "nodeStates" in data and "manifest" in data


def averos_to_v2(data: dict[str, Any]) -> dict[str, Any]:
    """Averos's state document as an averos-ci format-2 document (pure; StateShapeError)."""
    _check_shape(data)
    manifest = _normalize(data["manifest"])
    digest = _sha256_json(manifest)
    built_at = data.get("builtAt") if isinstance(data.get("builtAt"), str) else _EPOCH
    args = _node_args(manifest)
    node_states = {}
    for node_id, entry in data["nodeStates"].items():
        # A node Averos built (or found built) is applied; its args are the manifest's.
        if entry.get("state") in ("SUCCESS", "SKIPPED") and node_id in args:
            last_run = entry.get("lastRunAt")
            node_states[node_id] = {
                "argsHash": args[node_id],
                "appliedAt": last_run if isinstance(last_run, str) else built_at,
            }
    return {
        "formatVersion": 2,
        "manifest": manifest,
        "manifestHash": digest,
        "serial": 1,
        "lineage": str(uuid.uuid5(uuid.NAMESPACE_URL, "averos:" + digest)),
        "builtAt": built_at,
        "nodeStates": node_states,
    }


def _check_shape(data: dict[str, Any]) -> None:
    hint = "an averos-ci state has formatVersion; Averos's has manifest, builtAt and nodeStates"
    for key in ("manifest", "nodeStates"):
        if key not in data:
            raise StateShapeError(f"unknown state shape: no {key!r} ({hint})", "")
    if not isinstance(data["manifest"], dict):
        raise StateShapeError("Averos state: manifest must be an object", "/manifest")
    states = data["nodeStates"]
    if not isinstance(states, dict):
        raise StateShapeError("Averos state: nodeStates must be an object", "/nodeStates")
    for node_id, entry in states.items():
        where = "/nodeStates/" + node_id.replace("~", "~0").replace("/", "~1")
        if not isinstance(entry, dict) or entry.get("state") not in AVEROS_NODE_STATES:
            raise StateShapeError(
                f"Averos state: node {node_id!r} has no state among "
                f"{', '.join(sorted(AVEROS_NODE_STATES))}",
                where + "/state",
            )


def _normalize(raw: dict[str, Any]) -> dict[str, Any]:
    from averos_ci.manifest.validate import validate_document
    from averos_ci.source import SourceError, parse_document

    text = json.dumps(raw, ensure_ascii=False).encode("utf-8")
    try:
        doc = parse_document(text, path=Path("state.json#/manifest"), what="state manifest")
    except SourceError as exc:
        raise StateShapeError(f"Averos state: {exc.message}", "/manifest") from None
    result = validate_document(doc)
    if result.manifest is None:
        first = next(i for i in result.issues if i.is_error)
        raise StateShapeError(
            f"Averos state: the recorded manifest is invalid: {first.code} {first.message}",
            "/manifest" + (first.pointer or ""),
        )
    return result.manifest


def _node_args(manifest: dict[str, Any]) -> dict[str, str]:
    from averos_ci.plan.elements import elements

    return {e.id: _sha256_json(e.args) for e in elements(manifest).values()}


def _sha256_json(value: object) -> str:
    return hashlib.sha256(canonical_json(value).encode()).hexdigest()
