"""The TypeScript type of a simple member in the entity's model file.

@wiforge/averos 1.4.1's ``add-simple-member`` declares every member that is not a date as
``string`` (its ``getMemberType``), even a ``number`` or a ``boolean`` one, while the view
layouts it writes use the right type. This edit gives the declaration the manifest's type,
right after the schematic, so that a clean generation — and so every regeneration — declares
``pages!: number;``. Idempotent; a declaration the user changed is left alone.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from averos_ci.execute.contracts import ExecutionContext, ExecutionFailure, RuntimeMutation
from averos_ci.plan.model import PlanNode

from ..edits import Edited
from ..files import read_text, source_relative
from ..strings import camelize, dasherize
from ..writes import apply_edit, merge

# manifest memberType -> its TypeScript type, where the schematic writes ``string`` instead
TS_TYPES = {"number": "number", "boolean": "boolean"}
COMMAND = "add-simple-member"


def member_type(root: Path, args: Mapping[str, Any]) -> Edited:
    wanted = TS_TYPES.get(str(args.get("memberType", "")).lower())
    if wanted is None:
        return Edited()
    relative = source_relative(root, f"app/model/{dasherize(str(args['ename']))}.ts")
    path = root / relative
    if not path.is_file():
        return Edited()
    text = read_text(path)
    member = re.escape(camelize(str(args["mname"])))
    declaration = re.compile(rf"^(\s*{member}!): string;", re.MULTILINE)
    fixed, count = declaration.subn(rf"\1: {wanted};", text, count=1)
    return Edited(files={relative: fixed}) if count else Edited()


def finish_member(
    node: PlanNode,
    context: ExecutionContext,
    outcome: RuntimeMutation | ExecutionFailure,
) -> RuntimeMutation | ExecutionFailure:
    """``outcome`` of ``node``, with the member's declared type fixed (see the module)."""
    if node.command != COMMAND or not isinstance(outcome, RuntimeMutation) or context.dry_run:
        return outcome
    return merge(outcome, apply_edit(context, member_type(context.workspace_root, node.args)))
