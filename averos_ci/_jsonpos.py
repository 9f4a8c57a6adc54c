"""Line and column of every value in a JSON text, in one linear pass.

The stdlib parser (fast) keeps no positions; ruamel.yaml does, but is slow and superlinear on
large JSON (a 2.4 MB manifest takes tens of seconds). Findings need positions only now and
then, so this index is built lazily, once per document, by a regex tokenizer.
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\]:,]|[^\s{}\[\]:,"]+')

Path = tuple[str | int, ...]


@dataclass
class _Frame:
    is_object: bool
    path: Path
    expecting_key: bool
    index: int = 0
    key: str = ""
    key_offset: int = 0


class JsonPositions:
    def __init__(self, text: str) -> None:
        self._lines = [i for i, ch in enumerate(text) if ch == "\n"] if "\n" in text else []
        self._values: dict[Path, int] = {}
        self._keys: dict[Path, int] = {}
        self._scan(text)

    def _scan(self, text: str) -> None:
        stack: list[_Frame] = []
        for match in _TOKEN.finditer(text):
            token, offset = match.group(), match.start()
            top = stack[-1] if stack else None
            if token in ",:":
                if top is not None and top.is_object and token == ",":
                    top.expecting_key = True
                continue
            if token in "}]":
                if stack:
                    stack.pop()
                continue
            if top is not None and top.is_object and top.expecting_key:
                top.key = token[1:-1] if "\\" not in token else json.loads(token)
                top.key_offset = offset
                top.expecting_key = False
                continue
            if top is None:
                path: Path = ()
            elif top.is_object:
                path = (*top.path, top.key)
                self._keys[path] = top.key_offset
            else:
                path = (*top.path, top.index)
                top.index += 1
            self._values[path] = offset
            if token in "{[":
                stack.append(_Frame(is_object=token == "{", path=path, expecting_key=token == "{"))

    def locate(self, pointer: Sequence[str | int], *, key: bool = False) -> tuple[int, int]:
        """1-based (line, column) of ``pointer`` or of its nearest existing ancestor."""
        path = tuple(pointer)
        while path and path not in self._values:
            path = path[:-1]
        offset = self._keys.get(path, -1) if key else -1
        if offset < 0:
            offset = self._values.get(path, 0)
        line = bisect.bisect_left(self._lines, offset)
        start = self._lines[line - 1] + 1 if line else 0
        return line + 1, offset - start + 1
