"""Every hint or error that names a documentation section names one that exists.

A documentation reference in a string of the package is one that mentions the README, a
``docs/`` page, or says ``see '<section>'``. Each must resolve in the built site:

- ``docs/<page>.md`` (optionally ``#anchor``): the page exists and, with an anchor, has an
  element with that id;
- ``see '<section>'`` (without a ``docs/`` page): some page has a heading with that text;
- the README is a front page, not a manual: a reference to a README section fails.

Strings known to fail today are listed in ``KNOWN_BROKEN`` (strict xfail: re-pointing one
makes its case pass, and then it must leave the list).
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

# The references that point at README sections today, by the start of their text (stable when
# a module moves). The README is being cut to a front page: re-point each at a docs/ page;
# its case then passes and its entry must go (test_known_broken_entries_still_exist).
# The value is the page to point at (checked by test_the_suggested_targets_exist).
KNOWN_BROKEN = {
    "run inside GitHub Actions, or set these variables (see the README, 'Environment')": (
        "docs/reference/github-action.md#environment"
    ),
    "pull request from a fork: the plan is in the job summary only (see the README": (
        "docs/how-to/forks.md"
    ),
    " without a state key: the progress there is not authenticated (see the README": (
        "docs/explanation/threat-model.md"
    ),
    "see 'Settings' in the README": "docs/reference/configuration.md#github",
}


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


@pytest.mark.parametrize(
    "ref",
    [
        pytest.param(
            r,
            marks=pytest.mark.xfail(strict=True, reason="points at the README")
            if r.text.startswith(tuple(KNOWN_BROKEN))
            else (),
        )
        for r in REFERENCES
    ],
    ids=[r.where for r in REFERENCES],
)
def test_documentation_reference_resolves(ref: Reference, site: Path) -> None:
    assert problem(ref, site) is None, f"{ref.where}: {problem(ref, site)}: {ref.text!r}"


def test_known_broken_entries_still_exist() -> None:
    stale = [k for k in KNOWN_BROKEN if not any(r.text.startswith(k) for r in REFERENCES)]
    assert not stale, f"re-pointed or gone: drop {stale} from KNOWN_BROKEN"


@pytest.mark.parametrize("target", sorted(set(KNOWN_BROKEN.values())))
def test_the_suggested_targets_exist(target: str, site: Path) -> None:
    """Where each README reference should point instead (for whoever re-points it)."""
    assert problem(Reference("x:1", f"see {target}"), site) is None


def test_the_checker_accepts_pages_and_refuses_what_is_missing(site: Path) -> None:
    ok = Reference("x:1", "see docs/reference/cli.md#exit-codes")
    assert problem(ok, site) is None
    assert problem(Reference("x:1", "see 'Exit codes'"), site) is None
    assert "no anchor" in str(problem(Reference("x:1", "docs/reference/cli.md#nope"), site))
    assert "no page" in str(problem(Reference("x:1", "docs/nowhere.md"), site))
    assert "README" in str(problem(Reference("x:1", "see 'Policy' in the README"), site))
    assert "heading" in str(problem(Reference("x:1", "see 'No Such Section'"), site))
