"""RFC 6902 over plain and ruamel round-trip containers (the RFC's Appendix A examples)."""

from __future__ import annotations

import io
from typing import Any

import pytest
from ruamel.yaml import YAML

from averos_ci.mcp.jsonpatch import PatchError, apply_patch

APPENDIX_A: list[tuple[Any, list[dict[str, Any]], Any]] = [
    ({"foo": "bar"}, [{"op": "add", "path": "/baz", "value": "qux"}], {"baz": "qux", "foo": "bar"}),
    (
        {"foo": ["bar", "baz"]},
        [{"op": "add", "path": "/foo/1", "value": "qux"}],
        {"foo": ["bar", "qux", "baz"]},
    ),
    ({"baz": "qux", "foo": "bar"}, [{"op": "remove", "path": "/baz"}], {"foo": "bar"}),
    ({"foo": ["bar", "qux", "baz"]}, [{"op": "remove", "path": "/foo/1"}], {"foo": ["bar", "baz"]}),
    (
        {"baz": "qux", "foo": "bar"},
        [{"op": "replace", "path": "/baz", "value": "boo"}],
        {"baz": "boo", "foo": "bar"},
    ),
    (
        {"foo": {"bar": "baz", "waldo": "fred"}, "qux": {"corge": "grault"}},
        [{"op": "move", "from": "/foo/waldo", "path": "/qux/thud"}],
        {"foo": {"bar": "baz"}, "qux": {"corge": "grault", "thud": "fred"}},
    ),
    (
        {"foo": ["all", "grass", "cows", "eat"]},
        [{"op": "move", "from": "/foo/1", "path": "/foo/3"}],
        {"foo": ["all", "cows", "eat", "grass"]},
    ),
    (
        {"baz": "qux", "foo": ["a", 2, "c"]},
        [
            {"op": "test", "path": "/baz", "value": "qux"},
            {"op": "test", "path": "/foo/1", "value": 2},
        ],
        {"baz": "qux", "foo": ["a", 2, "c"]},
    ),
    (
        {"foo": "bar"},
        [{"op": "add", "path": "/child", "value": {"grandchild": {}}}],
        {"foo": "bar", "child": {"grandchild": {}}},
    ),
    (
        {"foo": ["bar"]},
        [{"op": "add", "path": "/foo/-", "value": ["abc", "def"]}],
        {"foo": ["bar", ["abc", "def"]]},
    ),
    ({"/": 9, "~1": 10}, [{"op": "test", "path": "/~01", "value": 10}], {"/": 9, "~1": 10}),
    ({"a": 1}, [{"op": "copy", "from": "/a", "path": "/b"}], {"a": 1, "b": 1}),
]


@pytest.mark.parametrize(("doc", "patch", "expected"), APPENDIX_A)
def test_rfc6902_appendix_a(doc: Any, patch: list[dict[str, Any]], expected: Any) -> None:
    assert apply_patch(doc, patch) == expected


@pytest.mark.parametrize(
    ("doc", "patch", "message"),
    [
        ({"baz": "qux"}, [{"op": "test", "path": "/baz", "value": "bar"}], "test failed"),
        ({"foo": "bar"}, [{"op": "add", "path": "/baz/bat", "value": "qux"}], "does not exist"),
        ({"foo": [1]}, [{"op": "add", "path": "/foo/01", "value": 2}], "not an array index"),
        ({"a": {"b": 1}}, [{"op": "move", "from": "/a", "path": "/a/c"}], "its own children"),
        ({"a": 1}, [{"op": "test", "path": "/a", "value": True}], "test failed"),
        ({"a": 1}, [{"op": "remove", "path": ""}], "whole document"),
        ({"a": 1}, [{"op": "add", "path": "a", "value": 1}], "not a JSON pointer"),
        ({"a": 1}, {"op": "add"}, "a list of operations"),
        ({"a": 1}, [{"op": "replace", "path": "/a"}], "needs a 'value'"),
    ],
)
def test_refusals_name_the_operation(doc: Any, patch: Any, message: str) -> None:
    with pytest.raises(PatchError) as info:
        apply_patch(doc, patch)
    assert message in str(info.value)


def test_round_trip_containers_keep_comments_and_key_positions() -> None:
    yaml = YAML(typ="rt")
    tree = yaml.load("a: 1  # one\nb: 2  # two\nc: [x, y]\n")
    apply_patch(
        tree,
        [
            {"op": "replace", "path": "/a", "value": 10},
            {"op": "add", "path": "/c/1", "value": "z"},
            {"op": "remove", "path": "/b"},
        ],
    )
    out = io.StringIO()
    yaml.dump(tree, out)
    assert out.getvalue() == "a: 10 # one\nc: [x, z, y]\n"  # the comment keeps its column
