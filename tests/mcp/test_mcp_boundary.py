"""The server is a thin front over the library: it never imports approval, apply or state-branch
code (DESIGN: "it never reaches approval or apply code"), and its public API is ``serve``."""

from __future__ import annotations

import ast
from pathlib import Path

import averos_ci.mcp

PACKAGE = Path(averos_ci.mcp.__file__).parent
ALLOWED_FORGE = {"averos_ci.forge.api"}  # the REST client, for `propose` and `status`
FORBIDDEN = (
    "averos_ci.github",
    "averos_ci.forge",
    "averos_ci.execute",
    "averos_ci.statebranch",
    "averos_ci.review",
)


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return names


def test_no_module_reaches_approval_apply_or_the_state_branch() -> None:
    modules = sorted(PACKAGE.glob("*.py"))
    assert len(modules) > 5
    reached = {
        f"{path.name}: {name}"
        for path in modules
        for name in _imports(path)
        if name.startswith(FORBIDDEN) and name not in ALLOWED_FORGE
    }
    assert not reached


def test_public_api() -> None:
    assert averos_ci.mcp.__all__ == ["serve"]
