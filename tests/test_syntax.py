"""averos_ci.source.syntax: a parser's complaint said for a person, located where the mistake is."""

from __future__ import annotations

from pathlib import Path

import pytest

from averos_ci.source import SourceError, parse_document


def syntax_error(text: str, name: str) -> SourceError:
    with pytest.raises(SourceError) as caught:
        parse_document(text.encode(), path=Path(name))
    assert caught.value.code == "SYN-05" and caught.value.hint
    return caught.value


@pytest.mark.parametrize(
    ("text", "where", "says"),
    [
        ("a: 1\n  b: 2\n", (2, 4), "a 'key: value' is not allowed here"),
        ("a:\n  - x\n  - y\n b: 1\n", (4, 2), "bad indentation"),
        ("a: [1, 2\nb: 3\n", (1, 4), "the '[' opened here is not closed"),
        ("a: {x: 1\nb: 3\n", (1, 4), "the '{' opened here is not closed"),
        ("a:\n\t- x\n", (2, 1), "a tab in the indentation"),
    ],
    ids=["deeper", "shallower", "open-list", "open-map", "tab"],
)
def test_yaml_syntax_errors_are_named(text: str, where: tuple[int, int], says: str) -> None:
    exc = syntax_error(text, "m.yaml")
    assert (exc.line, exc.column) == where
    assert exc.message.startswith(f"invalid YAML: {says}"), exc.message


def test_json_syntax_error_names_the_open_bracket() -> None:
    exc = syntax_error('{"a": [1, 2\n, "b": 1}', "m.json")
    assert "inside the '[' opened at 1:7" in exc.message
    assert (exc.line, exc.column) == (2, 6)
