"""The persisted and wire formats, from the JSON Schemas of their pydantic models.

The plan and state schemas are the shipped ones (``averos_ci.schemas``); checkpoints, the
RunnerSummary and the run events are rendered from their wire models the same way.
"""

from __future__ import annotations

import importlib
import json
import re
from typing import Any

from docs.gen.config_ref import type_text
from docs.gen.markdown import code, table

# (title, intro, "module:Model") of the wire models that have no shipped schema file.
WIRE_MODELS = (
    (
        "Checkpoint record",
        "One `checkpoint` of the checkpoint journal (`checkpointPath`; see "
        "[Files a run writes](files.md#checkpoints-checkpointpath-format-version-1)).",
        "averos_ci.execute.contracts:ExecutionCheckpoint",
    ),
    (
        "RunnerSummary",
        "`summary.json` in `logsDir` and `--summary-json` (plus `formatVersion` and `adapter`).",
        "averos_ci.execute.summary:RunnerSummary",
    ),
    (
        "Run events",
        "One line of `events.jsonl` (and what listeners get), by `type`.",
        "averos_ci.execute.events:RunnerEvent",
    ),
)


def schemas() -> list[tuple[str, str, dict[str, Any]]]:
    """(title, intro, JSON Schema) of every format the page documents."""
    from pydantic import TypeAdapter

    from averos_ci.schemas import generated

    out = []
    for name, schema in generated().items():
        intro = f"JSON Schema: `averos_ci/schemas/{name}` (`python -m averos_ci.schemas`)."
        out.append((str(schema.get("title", name)), intro, schema))
    for title, intro, target in WIRE_MODELS:
        module, attr = target.split(":")
        model = getattr(importlib.import_module(module), attr)
        schema = TypeAdapter(model).json_schema(by_alias=True, mode="serialization")
        out.append((title, intro, schema))
    return out


def objects(schema: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """The root object (or the members of a root union) and every object in ``$defs``."""
    defs = schema.get("$defs", {})
    roots: list[tuple[str, dict[str, Any]]] = []
    if "properties" in schema:
        roots.append((str(schema.get("title", "top level")), schema))
    seen = {id(s) for _, s in roots}
    for name, sub in sorted(defs.items()):
        if "properties" in sub and id(sub) not in seen:
            roots.append((name, sub))
    return roots


def properties(obj: dict[str, Any], defs: dict[str, Any]) -> list[tuple[str, str, bool, str]]:
    required = set(obj.get("required", []))
    rows = []
    for key, prop in obj.get("properties", {}).items():
        described = prop.get("description", "")
        kind = code(json.dumps(prop["const"])) if "const" in prop else _kind(prop, defs)
        rows.append((key, kind, key in required, described))
    return rows


def _kind(prop: dict[str, Any], defs: dict[str, Any]) -> str:
    """``type_text``, with objects defined in ``$defs`` linked to their table."""
    ref = str(prop.get("$ref", "")).rsplit("/", 1)[-1]
    if ref and "properties" in defs.get(ref, {}):
        return f"[{ref}](#{_id(ref)})"
    if prop.get("type") == "array" and isinstance(prop.get("items"), dict):
        return "list of " + _kind(prop["items"], defs)
    if "anyOf" in prop:
        parts = [_kind(p, defs) for p in prop["anyOf"] if p.get("type") != "null"]
        return " or ".join(dict.fromkeys(parts))
    return type_text(prop, defs)


def _id(name: str) -> str:
    return "def-" + "-".join(re.findall(r"[a-z0-9]+", name.lower()))


def render() -> str:
    lines = [
        "# File and wire formats",
        "",
        "<!-- Generated from the JSON Schemas and wire models by docs/gen/formats_ref.py: "
        "do not edit. -->",
        "",
        "Every field of the files averos-ci writes, from the pydantic models that write "
        "them (JSON names, camelCase). What the files are for, how they are written and "
        "upgraded: [Files a run writes](files.md) and [Plans and state](plan-and-state.md).",
        "",
    ]
    rendered: set[str] = set()  # a model shared by several formats gets one table
    for title, intro, schema in schemas():
        defs = schema.get("$defs", {})
        lines += [f"## {title}", "", intro, ""]
        for name, obj in objects(schema):
            if name in rendered:
                continue
            rendered.add(name)
            label = "Top level" if obj is schema else name
            lines += [f"### {label} {{#{_id(name)}}}", ""]
            if obj.get("description"):
                lines += [" ".join(str(obj["description"]).split()), ""]
            lines += table(
                ["field", "type", "required", "description"],
                [(code(k), t, "yes" if r else "", d) for k, t, r, d in properties(obj, defs)],
            )
    return "\n".join(lines).rstrip() + "\n"
