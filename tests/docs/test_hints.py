"""Every hint or error that names a documentation section names one that exists.

A documentation reference in a string of the package is one that mentions the README, a
``docs/`` page, or says ``see '<section>'``. Each must resolve in the built site:

- ``docs/<page>.md`` (optionally ``#anchor``): the page exists and, with an anchor, has an
  element with that id;
- ``see '<section>'`` (without a ``docs/`` page): some page has a heading with that text;
- the README is a front page, not a manual: a reference to a README section fails.
"""

from __future__ import annotations

import ast
import html
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT

PACKAGE = REPO_ROOT / "averos_ci"
MENTION = re.compile(r"README|docs/|see '")
PAGE = re.compile(r"docs/([\w./-]+?)\.md(?:#([\w-]+))?")
SECTION = re.compile(r"see '([^']+)'")


@dataclass(frozen=True)
class Reference:
    where: str  # path:line
    text: str


def references(package: Path = PACKAGE) -> list[Reference]:
    """String constants of the package (docstrings aside) that refer to documentation."""
    found = []
    for path in sorted(package.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = {
            id(node.body[0].value)
            for node in ast.walk(tree)
            if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
            and node.body
            and isinstance(node.body[0], ast.Expr)
        }
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and id(node) not in docstrings
                and MENTION.search(node.value)
            ):
                where = f"{path.relative_to(REPO_ROOT).as_posix()}:{node.lineno}"
                found.append(Reference(where, node.value))
    return found


@cache
def _site_index(site: Path) -> tuple[dict[str, set[str]], set[str]]:
    """Page path (``reference/cli``) -> its element ids; and every heading's text."""
    ids: dict[str, set[str]] = {}
    headings: set[str] = set()
    for page in site.rglob("index.html"):
        text = page.read_text(encoding="utf-8")
        key = page.parent.relative_to(site).as_posix()
        ids["index" if key == "." else key] = set(re.findall(r'\bid=["\']([^"\']+)["\']', text))
        for raw in re.findall(r"<h[1-6][^>]*>(.*?)</h[1-6]>", text, re.S):
            plain = html.unescape(re.sub(r"<[^>]+>", "", raw)).replace("¶", "").strip()
            headings.add(plain)
    return ids, headings


def problem(ref: Reference, site: Path) -> str | None:
    """Why ``ref`` does not resolve in the built site, or ``None``."""
    ids, headings = _site_index(site)
    pages = list(PAGE.finditer(ref.text))
    for match in pages:
        page, anchor = match.group(1), match.group(2)
        page = page.removesuffix("/index")
        if page not in ids:
            return f"no page docs/{page}.md"
        if anchor and anchor not in ids[page]:
            return f"docs/{page}.md has no anchor #{anchor}"
    if "README" in ref.text:
        return "names a README section (the README is a front page): name a docs/ page"
    if not pages:
        for section in SECTION.findall(ref.text):
            if section not in headings:
                return f"no page has a heading {section!r}"
    return None


REFERENCES = references()


def test_the_scan_finds_the_references() -> None:
    assert len(REFERENCES) >= 5
    assert all(MENTION.search(r.text) for r in REFERENCES)


@pytest.mark.parametrize("ref", REFERENCES, ids=[r.where for r in REFERENCES])
def test_documentation_reference_resolves(ref: Reference, site: Path) -> None:
    assert problem(ref, site) is None, f"{ref.where}: {problem(ref, site)}: {ref.text!r}"


def test_the_checker_accepts_pages_and_refuses_what_is_missing(site: Path) -> None:
    ok = Reference("x:1", "see docs/reference/cli.md#exit-codes")
    assert problem(ok, site) is None
    assert problem(Reference("x:1", "see 'Exit codes'"), site) is None
    assert "no anchor" in str(problem(Reference("x:1", "docs/reference/cli.md#nope"), site))
    assert "no page" in str(problem(Reference("x:1", "docs/nowhere.md"), site))
    assert "README" in str(problem(Reference("x:1", "see 'Policy' in the README"), site))
    assert "heading" in str(problem(Reference("x:1", "see 'No Such Section'"), site))
