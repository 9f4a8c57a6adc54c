"""Averos's own ``.averos/checkpoints.json``, read as an unbound checkpoint log.

Averos's ``FileCheckpointStore`` keeps one JSON document of ``ExecutionCheckpoint`` records
(``{nodeId, status, failure?, runtimeMutation?, updatedAt}``), as an object keyed by node id
or as a list (of records, or of ``[nodeId, record]`` pairs, a serialized ``Map``). They are
not bound to a planHash: ``--resume`` keeps the SUCCESS ones of nodes the current plan
executes, and the first run rewrites the file in averos-ci's journal format, bound to its
plan (:data:`AVEROS_UNBOUND` marks such a log until then).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from averos_ci.errors import StateError
from averos_ci.execute.contracts import ExecutionCheckpoint

AVEROS_UNBOUND = "averos:unbound"  # CheckpointLog.plan_hash of Averos's checkpoints
_EPOCH = "1970-01-01T00:00:00.000Z"
_HINT = "delete the checkpoint file (or pass --replan) to start the run over"


def averos_checkpoints(raw: bytes, *, path: Path) -> dict[str, ExecutionCheckpoint] | None:
    """The checkpoints of an Averos file; None when ``raw`` is not one (averos-ci's own
    journal has several JSON lines, or a header with ``kind``)."""
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None
    if isinstance(data, dict) and ("kind" in data or "formatVersion" in data):
        return None
    if isinstance(data, dict) and isinstance(data.get("checkpoints"), dict | list):
        data = data["checkpoints"]
    entries: list[tuple[str | None, Any, str]] = []
    if isinstance(data, dict):
        entries = [(k, v, f"/{k}") for k, v in data.items()]
    elif isinstance(data, list):
        for i, item in enumerate(data):
            if isinstance(item, list) and len(item) == 2 and isinstance(item[0], str):
                entries.append((item[0], item[1], f"/{i}/1"))
            else:
                entries.append((None, item, f"/{i}"))
    else:
        raise StateError(
            "checkpoint file has an unknown shape (neither averos-ci's nor Averos's)",
            path=path,
            hint=_HINT,
        )
    found: dict[str, ExecutionCheckpoint] = {}
    for key, record, where in entries:
        checkpoint = _checkpoint(key, record)
        if checkpoint is None:
            raise StateError(
                f"checkpoint file has an unknown shape at {where}: expected Averos's "
                "{nodeId, status, updatedAt} record",
                path=path,
                hint=_HINT,
            )
        found[checkpoint.node_id] = checkpoint
    return found


def _checkpoint(key: str | None, record: Any) -> ExecutionCheckpoint | None:
    if not isinstance(record, dict):
        return None
    node_id = record.get("nodeId", key)
    if not isinstance(node_id, str) or (key is not None and node_id != key):
        return None
    wire = {
        "nodeId": node_id,
        "status": record.get("status"),
        "attempt": record.get("attempt", 1),
        "updatedAt": record.get("updatedAt", _EPOCH),
    }
    failure = record.get("failure")
    if isinstance(failure, dict) and isinstance(failure.get("message"), str):
        wire["failure"] = {
            "code": str(failure.get("code") or "AVEROS_FAILURE"),
            "message": failure["message"],
        }
    try:
        # Averos's runtimeMutation shape is its own: progress is what matters, so drop it.
        return ExecutionCheckpoint.model_validate(wire)
    except ValidationError:
        return None
