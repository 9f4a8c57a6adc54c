"""JSON Schemas of the files averos-ci writes, generated from the pydantic models.

Regenerate with ``python -m averos_ci.schemas``; a test checks the shipped files are current.
"""

from __future__ import annotations

import json
from dataclasses import fields
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
NOT_APPLIED_SCHEMA: dict[str, Any] = {
    "description": "Settings the adapter predicts will not take effect (absent when none).",
    "type": "array",
    "items": {
        "type": "object",
        "additionalProperties": False,
        "required": ["nodeId", "setting", "reason"],
        "properties": {k: {"type": "string"} for k in ("nodeId", "setting", "reason")},
    },
}


def summary_schema() -> dict[str, Any]:
    """The plan JSON's ``summary`` (averos_ci.plan.items.ChangeCounts, plan.patch.file_counts)."""
    from averos_ci.plan.items import ChangeCounts
    from averos_ci.plan.patch import FILE_COUNTS

    counts = [f.name for f in fields(ChangeCounts)]
    return {
        "description": "The changes counted as the plan shows them, each once (a replacement "
        "as replace, a rename as rename); `counts` counts the nodes by action.",
        "type": "object",
        "additionalProperties": False,
        "required": counts,
        "properties": {
            **{k: {"type": "integer", "minimum": 0} for k in counts},
            "files": {
                "description": "The code change's files by status (a moved file is renamed, "
                "once), those with a conflict, and its lines (absent without a code change).",
                "type": "object",
                "additionalProperties": False,
                "required": list(FILE_COUNTS),
                "properties": {k: {"type": "integer", "minimum": 0} for k in FILE_COUNTS},
            },
        },
    }


def generated() -> dict[str, dict[str, Any]]:
    from averos_ci.plan.model import PLAN_FORMAT_VERSION, ExecutionPlan
    from averos_ci.state.model import STATE_FORMAT_VERSION, AppliedState

    out = {}
    for name, model, version in (
        ("plan", ExecutionPlan, PLAN_FORMAT_VERSION),
        ("state", AppliedState, STATE_FORMAT_VERSION),
    ):
        schema = model.model_json_schema(by_alias=True, mode="serialization")
        if name == "plan":  # rendered beside the plan, outside its hash (BESIDE_THE_PLAN)
            schema["properties"]["notApplied"] = NOT_APPLIED_SCHEMA
            schema["properties"]["summary"] = summary_schema()
        schema["$id"] = f"https://averos-ci.invalid/schemas/{name}-v{version}.schema.json"
        schema["title"] = f"averos-ci {name} file, formatVersion {version}"
        out[f"{name}.schema.json"] = schema
    return out


def render(schema: dict[str, Any]) -> str:
    return json.dumps(schema, indent=2, sort_keys=True) + "\n"


def main() -> None:
    for name, schema in generated().items():
        (HERE / name).write_text(render(schema), encoding="utf-8")
        print(f"wrote {HERE / name}")


if __name__ == "__main__":
    main()
