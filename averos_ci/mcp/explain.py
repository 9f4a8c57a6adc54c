"""The ``explain`` tool: what a finding code or a plan node means, and how to act on it."""

from __future__ import annotations

import difflib
from typing import Any

from averos_ci.errors import InputError
from averos_ci.mcp.codes import CODE, code_table
from averos_ci.mcp.workspace import Workspace


def explain(ws: Workspace, subject: str, *, project: str | None = None) -> dict[str, Any]:
    subject = subject.strip()
    if CODE.match(subject.upper()):
        return _explain_code(subject.upper())
    return _explain_node(ws, subject, project=project)


def _explain_code(code: str) -> dict[str, Any]:
    table = code_table()
    if code not in table:
        raise InputError(
            f"unknown finding code {code!r}",
            hint="known codes: " + ", ".join(table),
        )
    wire = table[code].to_wire()
    return {"kind": "finding", "code": wire, "node": None, "phases": _phases()}


def _phases() -> list[str]:
    from averos_ci.plan.model import Phase

    return [p.value for p in Phase]


def _explain_node(ws: Workspace, node_id: str, *, project: str | None) -> dict[str, Any]:
    from averos_ci.manifest.validate import load_manifest
    from averos_ci.plan.elements import elements
    from averos_ci.plan.model import Phase
    from averos_ci.plan.sensitive import SensitiveRules

    phase_name = node_id.split(":", 1)[0]
    if phase_name not in Phase._value2member_map_:
        raise InputError(
            f"{node_id!r} is neither a finding code (e.g. REF-01) nor a node id",
            hint="node ids start with a phase: " + ", ".join(_phases()),
        )
    from averos_ci.mcp.locate import locate_node
    from averos_ci.source import load_document

    cfg = ws.run_config(project)
    path = ws.manifest(None, project=project)
    manifest, _ = load_manifest(path, max_bytes=ws.max_bytes)
    found = {e.id: e for e in elements(manifest, sensitive=SensitiveRules(cfg.sensitive)).values()}
    element = found.get(node_id)
    if element is None:
        near = difflib.get_close_matches(node_id, list(found), n=5)
        raise InputError(
            f"no node {node_id!r} in {ws.relative(cfg.manifest_path)}",
            hint=("did you mean: " + ", ".join(near)) if near else "plan the manifest to list ids",
        )
    phase = Phase(phase_name)
    args = {
        k: "(sensitive)" if k in element.sensitive_fields else v for k, v in element.args.items()
    }
    dependents = sorted(e.id for e in found.values() if element.id in e.deps)
    return {
        "kind": "node",
        "code": None,
        "node": {
            "id": element.id,
            "elementKind": element.kind,
            "phase": phase.value,
            "phaseRank": phase.rank,
            "command": element.command,
            "args": args,
            "dependsOn": list(element.deps),
            "dependents": dependents,
            "fieldsNeverUpdated": sorted(element.conflict_fields),
            "manifest": ws.relative(path),
            "location": locate_node(
                load_document(path, max_bytes=ws.max_bytes, what="manifest"), element.id
            ),
            "meaning": (
                f"runs the Averos schematic {element.command!r} in phase {phase.value!r} "
                f"(phase {phase.rank + 1} of {len(Phase)}), after {len(element.deps)} node(s) "
                "it depends on. A change to a field listed in fieldsNeverUpdated ('*': any "
                "field) is no update the schematics can make: the plan shows it as a conflict"
                if element.conflict_fields
                else f"runs the Averos schematic {element.command!r} in phase {phase.value!r}"
            ),
        },
        "phases": _phases(),
    }
