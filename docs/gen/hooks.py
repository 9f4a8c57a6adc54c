"""mkdocs hooks (``hooks:`` in mkdocs.yml): add the generated reference pages at build time.

The pages never exist on disk, so they cannot be edited by hand or go stale. Pages that other
work adds later (``setup.md``, ``mcp.md``) join the navigation only when the file exists.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # mkdocs loads this file by path: make ``docs.gen`` importable
    sys.path.insert(0, str(ROOT))

from docs.gen.pages import build  # noqa: E402

# (file under docs/, nav title, nav section it joins): listed only when the file exists.
OPTIONAL_PAGES = (
    ("setup.md", "Set up a repository (init, doctor)", "How-to guides"),
    ("mcp.md", "Agents: the MCP server", "How-to guides"),
)


# Generated pages that join a nav section (title, page, section) at build time.
GENERATED_NAV = (("Benchmarks and their targets", "reference/benchmarks.md", "Reference"),)


def on_config(config: Any, **_: Any) -> Any:
    docs_dir = Path(config["docs_dir"])
    for title, name, section in GENERATED_NAV:
        for entry in config["nav"] or []:
            if isinstance(entry, dict) and section in entry:
                pages = entry[section]
                if not any(name in (p.values() if isinstance(p, dict) else [p]) for p in pages):
                    pages.append({title: name})
    for name, title, section in OPTIONAL_PAGES:
        if not (docs_dir / name).is_file():
            continue
        for entry in config["nav"] or []:
            if isinstance(entry, dict) and section in entry:
                pages = entry[section]
                if not any(name in (p.values() if isinstance(p, dict) else [p]) for p in pages):
                    pages.insert(0, {title: name})
    return config


def on_files(files: Any, config: Any, **_: Any) -> Any:
    from mkdocs.structure.files import File

    for uri, content in build().items():
        files.append(File.generated(config, uri, content=content))
    return files
