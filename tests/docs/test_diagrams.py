"""The site's Mermaid diagrams (flow, sequence) parse with Mermaid's own parser — the pinned
one ``tests/plan/test_mermaid.py`` uses (skipped without it locally, failing under CI)."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest

from averos_ci.execute.adapters.angular.cache import cache_root
from tests.conftest import REPO_ROOT
from tests.plan.test_mermaid import HERE as MERMAID_HERE
from tests.plan.test_mermaid import _parse

BLOCK = re.compile(r"^```mermaid\n(.*?)^```$", re.S | re.M)


@pytest.fixture(scope="session")
def mermaid_modules() -> Path:
    lock = hashlib.sha256((MERMAID_HERE / "package-lock.json").read_bytes()).hexdigest()[:12]
    return cache_root(None) / "mermaid-check" / lock


def diagrams() -> list[tuple[str, str]]:
    out = []
    for page in sorted((REPO_ROOT / "docs").rglob("*.md")):
        for block in BLOCK.findall(page.read_text(encoding="utf-8")):
            out.append((page.relative_to(REPO_ROOT).as_posix(), block))
    return out


def test_the_flow_is_drawn() -> None:
    pages = {page for page, _ in diagrams()}
    assert {"docs/index.md", "docs/tutorial/first-pull-request.md"} <= pages
    flow = next(b for p, b in diagrams() if p == "docs/tutorial/first-pull-request.md")
    for step in ("pull request", "plan", "approve", "merge", "apply", "averos-state"):
        assert step in flow


def test_diagrams_parse(mermaid_modules: Path, tmp_path: Path) -> None:
    found = diagrams()
    results = _parse([b for _, b in found], mermaid_modules, tmp_path)
    broken = [(p, r) for (p, _), r in zip(found, results, strict=True) if not r["ok"]]
    assert not broken, broken
