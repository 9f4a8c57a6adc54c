"""Built-in edits: what @wiforge/averos 1.4.x has no schematic for, done as direct,
idempotent edits of the generated sources (see runtime_config for the configuration ones).

An edit returns the files to write (only those whose text changes) and notes: what the
node asked for that has no place in the runtime. The adapter writes the notes into the
node's log, so that a setting that cannot take effect is said, never silently recorded.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .files import source_relative


@dataclass(frozen=True)
class Edited:
    files: dict[str, str] = field(default_factory=dict)
    notes: tuple[str, ...] = ()


Edit = Callable[[Path, Mapping[str, Any]], Edited]


def translation_value(root: Path, args: Mapping[str, Any]) -> Edited:
    """add-translation-entry only adds missing keys (it never changes a value): set it.

    Written the way the schematic writes the file (``JSON.stringify``: compact, key order
    kept), so that the result is the same whichever of the two wrote the value.
    """
    relative = source_relative(root, f"assets/i18n/{args['lang']}.json")
    path = root / relative
    if not path.is_file():
        return Edited()
    data = json.loads(path.read_text(encoding="utf-8"))
    key = str(args["key"]).lower()  # the schematic lower-cases keys (toLocaleLowerCase)
    if not isinstance(data, dict) or data.get(key) == args["value"]:
        return Edited()
    data[key] = args["value"]
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return Edited(files={relative: text})
