"""Every node of the real Averos designer export and of the example is located in its file."""

from __future__ import annotations

from pathlib import Path

import pytest

from averos_ci.manifest.validate import load_manifest
from averos_ci.mcp.locate import locate_node
from averos_ci.plan.elements import elements
from averos_ci.source import load_document
from tests.conftest import EXAMPLE_DIR, GOLDEN_MANIFEST


@pytest.mark.parametrize("path", [GOLDEN_MANIFEST, EXAMPLE_DIR / "todoapp.manifest.yaml"])
def test_every_node_is_located(path: Path) -> None:
    doc = load_document(path)
    manifest, _ = load_manifest(path)
    ids = [e.id for e in elements(manifest).values()]
    located = {i: locate_node(doc, i) for i in ids}
    assert not [i for i, where in located.items() if where is None]
    pointers = [where["pointer"] for where in located.values() if where]
    assert len(set(pointers)) == len(pointers)  # one place per element


def test_an_unknown_node_is_not_located() -> None:
    doc = load_document(GOLDEN_MANIFEST)
    assert locate_node(doc, "entity:Nope") is None
    assert locate_node(doc, "simple-field:Nope:x") is None
