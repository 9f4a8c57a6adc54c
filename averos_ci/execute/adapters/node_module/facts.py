"""What the core asks of the ``node-module`` adapter besides running nodes: its options
completed from the config, and the code it loads, by content (the plan's ``loadedFiles``).

The code: the module, the local modules it imports (relative ``import``/``require``/
``export … from`` specifiers, followed statically), and the nearest ``package.json`` (it
decides how Node reads the module). A specifier computed at run time and packages under
``node_modules`` are not followed. Every file is read through the planner's ``Reader``, so
the base branch's identity hashes the base commit's files.
"""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from averos_ci.execute.adapters.contract import AdapterBase, Reader
from averos_ci.execute.adapters.identity import portable
from averos_ci.plan.loaded_files import digest

if TYPE_CHECKING:
    from averos_ci.config import RunConfig

MAX_FILES = 200  # a bound on the import walk
_SCRIPTS = (".js", ".mjs", ".cjs")
_SPECIFIER = re.compile(r"""\b(?:from|import|require)\s*\(?\s*(['"])(\.\.?/[^'"\n]*)\1""")
_CANDIDATES = ("", ".js", ".mjs", ".cjs", ".json", "/index.js", "/index.mjs", "/index.cjs")


class NodeModuleFacts(AdapterBase):
    @classmethod
    def config_options(cls, options: Mapping[str, Any], config: RunConfig) -> dict[str, Any]:
        """The config file's folder, against which the module is resolved (and confined)."""
        return {**options, "configDir": str(config.base_dir)}

    @classmethod
    def loaded_files(
        cls, options: Mapping[str, Any], *, base_dir: Path, read: Reader
    ) -> dict[str, str]:
        module = options.get("module")
        if not isinstance(module, str) or not module:
            return {}
        if os.path.isabs(module):
            module = portable(module, base_dir)
        return {} if os.path.isabs(module) else module_files(module, read)


def module_files(module: str, read: Reader) -> dict[str, str]:
    """The adapter module at config-relative ``module``, what it imports, its package.json."""
    out: dict[str, str] = {}
    todo = [_inside(module)]
    while todo and len(out) < MAX_FILES:
        rel = todo.pop()
        if rel is None or rel in out:
            continue
        data = read(rel)
        if data is None:
            continue
        out[rel] = digest(data)
        if rel.endswith(_SCRIPTS):
            todo += _imports(rel, data.decode("utf-8", "replace"), read)
    entry = _inside(module)
    if entry is not None:
        folder = posixpath.dirname(entry)
        while True:  # the nearest package.json, up to the config's folder
            rel = posixpath.join(folder, "package.json") if folder else "package.json"
            data = read(rel)
            if data is not None:
                out[rel] = digest(data)
                break
            if not folder:
                break
            folder = posixpath.dirname(folder)
    return dict(sorted(out.items()))


def _imports(rel: str, text: str, read: Reader) -> list[str | None]:
    folder = posixpath.dirname(rel)
    found: list[str | None] = []
    for match in _SPECIFIER.finditer(text):
        target = _inside(posixpath.join(folder, match.group(2)))
        if target is None:
            continue
        found.append(next((target + s for s in _CANDIDATES if read(target + s) is not None), None))
    return found


def _inside(rel: str) -> str | None:
    """``rel`` normalised, or ``None`` when it leaves the config's folder."""
    norm = posixpath.normpath(rel.replace("\\", "/"))
    if norm.startswith(("../", "/")) or norm in ("..", "."):
        return None
    return norm
