"""JSON text -> data through the stdlib parser (fast), refusing what JSON or a state file
cannot hold: duplicate keys, NaN / Infinity, lone UTF-16 surrogates; each refusal located."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from averos_ci.source.document import Document, SourceError, ruamel


class _DuplicateKey(Exception):
    pass


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)  # in C: a loop per object in Python doubled the time of a valid load
    if len(out) != len(pairs):
        seen: set[str] = set()
        for k, _ in pairs:
            if k in seen:
                raise _DuplicateKey(k)
            seen.add(k)
    return out


def _bad_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def parse_json(text: str, path: Path) -> Document:
    try:
        data = json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_bad_constant)
    except json.JSONDecodeError as exc:
        from averos_ci.source.syntax import json_syntax  # a failure's: not on every `validate`

        said = json_syntax(exc)
        raise SourceError("SYN-05", said.message, path=path, line=said.line,
                          column=said.column, hint=said.hint) from None  # fmt: skip
    except _DuplicateKey as exc:
        line, col = _locate_duplicate(text, path)
        raise SourceError(
            "SYN-06",
            f"duplicate key {str(exc.args[0])!r}",
            path=path,
            line=line,
            column=col,
            hint="each key may appear once per object",
        ) from None
    except ValueError as exc:  # NaN / Infinity: valid for Python, not JSON
        at_line, at_col = _locate_constant(text)
        raise SourceError(
            "SYN-05", f"invalid JSON: {exc}", path=path, line=at_line, column=at_col
        ) from None
    # json's C decoder raises RecursionError itself on absurd nesting (reported as SYN-05).
    return Document(path=path, text=text, data=data, is_yaml=False)


# A \ud800-\udfff escape is legal JSON, but a lone one is not a character: it cannot be
# written back as UTF-8 (hashes, plans, state files), so it is refused here, located.
SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def refuse_lone_surrogates(data: Any, text: str, path: Path) -> None:
    try:
        json.dumps(data, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        for match in SURROGATE_ESCAPE.finditer(text):
            try:
                json.loads(f'"{match.group()}"').encode("utf-8")
            except UnicodeEncodeError:
                offset = match.start()
                line = text.count("\n", 0, offset) + 1
                col = offset - (text.rfind("\n", 0, offset) + 1) + 1
                raise SourceError(
                    "SYN-03",
                    "lone UTF-16 surrogate escape: not a character",
                    path=path,
                    line=line,
                    column=col,
                    hint="escape the whole surrogate pair, or write the character itself",
                ) from None
        raise SourceError("SYN-03", "lone UTF-16 surrogate escape", path=path) from None


_CONSTANT = re.compile(r"(?<=[:\[,])\s*(-?Infinity|NaN)\b")


def _locate_constant(text: str) -> tuple[int | None, int | None]:
    match = _CONSTANT.search(text)
    if match is None:
        return None, None
    offset = match.start(1)
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def _locate_duplicate(text: str, path: Path) -> tuple[int, int]:
    try:
        ruamel().load(text)
    except Exception as exc:
        mark = getattr(exc, "problem_mark", None)
        if mark is not None:
            return mark.line + 1, mark.column + 1
    return 1, 1
