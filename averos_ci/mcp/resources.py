"""What the server offers to read: the JSON Schemas and the documentation's reference pages."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import averos_ci

# The documentation lives beside the package in a source checkout (an installed wheel has none:
# then only the schemas are offered).
DOCS_DIR = Path(averos_ci.__file__).resolve().parent.parent / "docs"


def manifest_schema() -> dict[str, Any]:
    """The flat canonical manifest, from the pydantic models the validator uses; members are
    one of the two member shapes (the validator picks by ``memberNature``)."""
    from averos_ci.manifest import schema

    root = schema.Application.model_json_schema()
    defs = root.setdefault("$defs", {})
    for model in (schema.SimpleMember, schema.CompositeMember):
        sub = model.model_json_schema()
        defs.update(sub.pop("$defs", {}))
        defs[model.__name__] = sub
    entity = defs.get("Entity", {})
    members = entity.get("properties", {}).get("members")
    if isinstance(members, dict):
        members["items"] = {
            "oneOf": [{"$ref": "#/$defs/SimpleMember"}, {"$ref": "#/$defs/CompositeMember"}]
        }
    root["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    root["title"] = "Averos manifest (flat canonical form)"
    root["description"] = (
        "The shape only: the semantic rules (REF-xx, CON-xx) are checked by the validate "
        "tool. A designer export wraps this object in project.averosApplication."
    )
    return root


def shipped_schema(name: str) -> str:
    from averos_ci.schemas import HERE

    return (HERE / name).read_text(encoding="utf-8")


def doc_pages() -> dict[str, Path]:
    if not DOCS_DIR.is_dir():
        return {}
    return {p.stem: p for p in sorted(DOCS_DIR.glob("*.md")) if not p.name.endswith("-internal.md")}


def render_json(value: Any) -> str:
    return json.dumps(value, indent=2, sort_keys=True) + "\n"
