"""A related record shown by its BusinessID, as Averos 2 shows it.

Averos 2's result table shows a one-to-one related record by the BusinessID member of its
entity (packages/ui-platform/src/view/components/view-components/averos-dynamic-table/
averos-dynamic-table.component.ts, ``evaluateCompositeRelationValue``:
``${key}.${getBusinessIdName(type)}``). @wiforge/averos 1.4.1 shows it by the view-layout
entry's ``entityCompositeFieldName``, which its ``add-composite-member`` writes as
``<member>.name`` in every use case of the parent's ``src/assets/viewlayout/<entity>VL.json``
(node_modules/@wiforge/averos/schematics/add-composite-member/index.js). So where the related
entity has a BusinessID member, the label becomes ``<member>.<that member>``.

Both orders of the manifest's nodes get there: the relation's node reads the BusinessID the
related model already declares, and the BusinessID's node rewrites the relations already
added. A pure function of the files: re-running it rewrites nothing.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from ..files import read_text, source_relative
from ..strings import dasherize

# the line entities.business_id writes into a model (1.4.1 has no @BusinessID())
BUSINESS_ID = re.compile(r"^[ \t]*public static businessIdName = '(\w+)';\r?\n", re.M)
# one view-layout entry of a relation: its member, its entity, its label path (no nested
# object between them: the schematic writes the three keys in this order, before fieldGroup)
_COMPOSITE = re.compile(
    r'("entityFieldName":\s*"(\w+)"[^{}]*?"typeName":\s*"(\w+)"[^{}]*?'
    r'"entityCompositeFieldName":\s*")(\w+)\.(\w+)(")'
)


def business_id_of(root: Path, entity: str) -> str | None:
    """The BusinessID member the entity's model declares, if any."""
    path = root / source_relative(root, f"app/model/{dasherize(entity)}.ts")
    found = BUSINESS_ID.search(read_text(path)) if path.is_file() else None
    return found.group(1) if found else None


def composite_labels(root: Path, known: Mapping[str, str] | None = None) -> dict[str, str]:
    """The view layouts whose relation labels change; ``known``: entity -> BusinessID member
    set by the running edit (its model is not written yet)."""
    folder = root / source_relative(root, "assets/viewlayout")
    if not folder.is_dir():
        return {}
    names: dict[str, str | None] = dict(known or {})

    def label(m: re.Match[str]) -> str:
        member, entity, head, tail = m.group(2), m.group(3), m.group(4), m.group(5)
        if entity not in names:
            names[entity] = business_id_of(root, entity)
        business = names[entity]
        if head != member or business is None or business == tail:
            return m.group(0)
        return f"{m.group(1)}{member}.{business}{m.group(6)}"

    out: dict[str, str] = {}
    for path in sorted(folder.glob("*VL.json")):
        text = read_text(path)
        new = _COMPOSITE.sub(label, text)
        if new != text:
            out[path.relative_to(root).as_posix()] = new
    return out
