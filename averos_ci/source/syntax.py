"""A parser's complaint about a JSON or YAML text, said for a person: where, what, how to fix.

The parsers report where they gave up, which is often a line after the mistake (a ``{`` left
open on line 109 fails on line 110) and in their own terms (``expected <block end>, but found
'<block mapping start>'``). These functions name the mistake and point at it.
"""

from __future__ import annotations

import json
import re
from typing import Any, NamedTuple

YAML_SYNTAX_HINT = "check the YAML near this line: indentation, quotes, brackets"
_INDENT_HINT = (
    "indent the keys of one mapping by the same number of spaces, and a list item's keys "
    "under its first key (YAML forbids tabs)"
)
_CLOSERS = {"{": "}", "[": "]"}


class Syntax(NamedTuple):  # not a dataclass: `validate` never imports inspect
    message: str
    line: int | None
    column: int | None
    hint: str


def _pos(mark: Any) -> tuple[int | None, int | None]:
    return (mark.line + 1, mark.column + 1) if mark is not None else (None, None)


def yaml_syntax(exc: Any) -> Syntax:
    """``exc``: ruamel's ``MarkedYAMLError``."""
    problem = (exc.problem or exc.context or "invalid YAML").strip()
    context = (exc.context or "").strip()
    line, col = _pos(exc.problem_mark or exc.context_mark)
    if context.startswith("while parsing a flow") and exc.context_mark is not None:
        opened_line, opened_col = _pos(exc.context_mark)
        text = exc.context_mark.buffer or ""
        bracket = text[exc.context_mark.index] if exc.context_mark.index < len(text) else "{"
        closer = _CLOSERS.get(bracket, "}")
        return Syntax(
            f"invalid YAML: the {bracket!r} opened here is not closed (at {line}:{col}: {problem})",
            opened_line,
            opened_col,
            f"close it with {closer!r} on the same entry, or separate items with ','",
        )
    if "expected <block end>" in problem or "expected <block" in problem:
        return Syntax(
            "invalid YAML: bad indentation: this line is indented differently from the "
            "lines before it",
            line,
            col,
            _INDENT_HINT,
        )
    if "mapping values are not allowed" in problem:
        return Syntax(
            "invalid YAML: a 'key: value' is not allowed here: the line is indented deeper "
            "than the key above it, or a value contains ': '",
            line,
            col,
            _INDENT_HINT + "; quote a value that contains ': '",
        )
    if "could not find expected ':'" in problem:
        return Syntax(
            "invalid YAML: a key without ':' (or a line that continues a quoted value)",
            line,
            col,
            "write 'key: value', or close the quote on the line above",
        )
    if "'\\t'" in problem or "\\t" in problem:
        return Syntax("invalid YAML: a tab in the indentation", line, col, _INDENT_HINT)
    return Syntax(f"invalid YAML: {problem}", line, col, YAML_SYNTAX_HINT)


def json_syntax(exc: json.JSONDecodeError) -> Syntax:
    """Where the JSON parser failed, naming the bracket still open there."""
    message = f"invalid JSON: {exc.msg}"
    opened = _innermost_open(exc.doc, exc.pos)
    if opened is not None and exc.msg.startswith(("Expecting ',' delimiter", "Expecting")):
        bracket, at = opened
        o_line = exc.doc.count("\n", 0, at) + 1
        o_col = at - (exc.doc.rfind("\n", 0, at) + 1) + 1
        message += f" (inside the {bracket!r} opened at {o_line}:{o_col})"
    return Syntax(
        message,
        exc.lineno,
        exc.colno,
        "a ',' between items, none after the last; every '{' and '[' closed; keys in double quotes",
    )


_JSON_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"?|[{}\[\]]')


def _innermost_open(text: str, end: int) -> tuple[str, int] | None:
    stack: list[tuple[str, int]] = []
    for match in _JSON_TOKEN.finditer(text, 0, end):
        token = match.group()
        if token in "{[":
            stack.append((token, match.start()))
        elif token in "}]" and stack:
            stack.pop()
    return stack[-1] if stack else None
