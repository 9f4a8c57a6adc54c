"""The linear JSON position index agrees with ruamel.yaml's positions on the golden manifest."""

from __future__ import annotations

import json
from typing import Any

from ruamel.yaml import YAML

from averos_ci._jsonpos import JsonPositions
from tests.conftest import GOLDEN_MANIFEST


def _paths(value: Any, prefix: tuple[str | int, ...] = ()) -> list[tuple[str | int, ...]]:
    out = [prefix]
    if isinstance(value, dict):
        for k, v in value.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _paths(v, (*prefix, i))
    return out


def _ruamel_position(tree: Any, path: tuple[str | int, ...], *, key: bool) -> tuple[int, int]:
    node, pos = tree, (1, 1)
    for i, part in enumerate(path):
        last = i == len(path) - 1
        if isinstance(node, list):
            line, col = node.lc.item(part)
        else:
            line, col = node.lc.key(part) if key and last else node.lc.value(part)
        pos = (line + 1, col + 1)
        node = node[part]
    return pos


def test_every_value_and_key_position_matches_ruamel() -> None:
    text = GOLDEN_MANIFEST.read_text(encoding="utf-8")
    tree = YAML(typ="rt", pure=True).load(text)
    index = JsonPositions(text)
    paths = _paths(json.loads(text))[1:]
    assert len(paths) > 2000
    for path in paths:
        assert index.locate(path) == _ruamel_position(tree, path, key=False), path
        if isinstance(path[-1], str):
            assert index.locate(path, key=True) == _ruamel_position(tree, path, key=True), path


def test_missing_pointer_falls_back_to_nearest_ancestor() -> None:
    index = JsonPositions('{\n  "a": {"b": [10, {"c": "\\"x\\""}]}\n}')
    assert index.locate(("a", "b", 1, "c")) == (2, 25)
    assert index.locate(("a", "b", 1, "c", "zzz")) == (2, 25)
    assert index.locate(("a", "b", 5)) == (2, 14)
    assert index.locate(("a",), key=True) == (2, 3)
