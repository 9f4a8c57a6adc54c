"""No adapter is known by name outside its own folder: the core asks the adapter's hooks
(``averos_ci/execute/adapters/contract.py``), never compares, defaults to or spells an adapter
name. A new adapter is one folder and one entry point; a name elsewhere is a branch waiting
to be missed by the next one.

Checked: every string literal of ``averos_ci/`` outside ``execute/adapters/`` except
docstrings (prose may say "the Angular adapter"; code may not say ``"angular-schematics"``).
A name with a hyphen counts wherever it stands as a word; a plain word such as ``mock`` (the
preview's "mock backend" is another thing) counts as the whole string or quoted in one.
"""

from __future__ import annotations

import ast
import re
import tomllib
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "averos_ci"
HOME = PACKAGE / "execute" / "adapters"


def adapter_names() -> list[str]:
    """The built-in adapters: the entry points ``pyproject.toml`` registers."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return sorted(project["project"]["entry-points"]["averos_ci.adapters"])


def _pattern(name: str) -> re.Pattern[str]:
    word = re.escape(name)
    if "-" in name:
        return re.compile(rf"(?<![\w-]){word}(?![\w-])")
    return re.compile(rf"^{word}$|[\"'`]{word}[\"'`]")


def _docstrings(tree: ast.AST) -> set[int]:
    found: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                found.add(id(body[0].value))
    return found


def spelled(source: str, names: list[str]) -> Iterator[tuple[int, str]]:
    """(line, name) of each adapter name ``source`` spells in a string literal."""
    tree = ast.parse(source)
    skip = _docstrings(tree)
    patterns = {name: _pattern(name) for name in names}
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
            for name, pattern in patterns.items():
                if pattern.search(node.value):
                    yield node.lineno, name


def offenders(package: Path, names: list[str]) -> dict[str, list[str]]:
    home = package / "execute" / "adapters"
    found: dict[str, list[str]] = {}
    for path in sorted(package.rglob("*.py")):
        if path.is_relative_to(home):
            continue
        hits = [f"{n}: {name}" for n, name in sorted(spelled(path.read_text("utf-8"), names))]
        if hits:
            found[path.relative_to(package.parent).as_posix()] = hits
    return found


def test_the_names_are_the_registered_ones() -> None:
    assert adapter_names() == ["angular-schematics", "mock", "node-module"]


def test_no_adapter_name_outside_its_folder() -> None:
    found = offenders(PACKAGE, adapter_names())
    assert not found, f"adapter names outside execute/adapters/: {found}"


def test_a_planted_name_fails(tmp_path: Path) -> None:
    """The check finds a branch on a name, a quoted mention and a default, and leaves
    docstrings, the adapters' own folder and other meanings of the word alone."""
    pkg = tmp_path / "averos_ci"
    (pkg / "execute" / "adapters").mkdir(parents=True)
    (pkg / "execute" / "adapters" / "mine.py").write_text('NAME = "node-module"\n')
    (pkg / "console.py").write_text(
        '"""The angular-schematics adapter is prose here."""\n'
        "def line(adapter: str) -> str:\n"
        '    if adapter == "angular-schematics":\n'
        '        return "a mock backend serves it"\n'
        "    return f'say \"mock\" {adapter}'\n"
        'DEFAULT = "node-module"\n'
    )
    assert offenders(pkg, adapter_names()) == {
        "averos_ci/console.py": ["3: angular-schematics", "5: mock", "6: node-module"]
    }
