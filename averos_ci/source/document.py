"""A loaded JSON / YAML document that can say the line and column of any of its nodes, and
the error of a file that cannot be read as one (:class:`SourceError`, with a stable SYN-xx
code)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from averos_ci._validation import first_problem
from averos_ci.errors import InputError

if TYPE_CHECKING:
    from pydantic import ValidationError

Pointer = tuple[str | int, ...]


class SourceError(InputError):
    """A file that cannot be read as a document at all."""

    def __init__(
        self,
        code: str,
        message: str,
        *,
        path: str | Path,
        line: int | None = None,
        column: int | None = None,
        hint: str | None = None,
    ) -> None:
        super().__init__(message, path=path, line=line, column=column, hint=hint)
        self.code = code


class Document:  # not a dataclass: `validate` (the pre-commit hook) never imports inspect
    def __init__(self, *, path: Path, text: str, data: Any, is_yaml: bool, _tree: Any = None,
                 _tree_loaded: bool = False) -> None:  # fmt: skip
        self.path, self.text, self.data, self.is_yaml = path, text, data, is_yaml
        self._tree, self._tree_loaded = _tree, _tree_loaded

    def _roundtrip_tree(self) -> Any:
        if not self._tree_loaded:
            self._tree_loaded = True
            try:
                self._tree = ruamel().load(self.text)
            except Exception:  # only used for locating: a failure means "no position"
                self._tree = None
        return self._tree

    def locate_validation_error(
        self, exc: ValidationError, *, key_on_extra: bool = False
    ) -> tuple[str, int, int]:
        """The first pydantic error as ``("<pointer>: <message>", line, column)`` in this file;
        ``key_on_extra`` points an unknown key at the key itself rather than its value."""
        problem = first_problem(exc)
        line, col = self.locate(problem.loc, key=key_on_extra and problem.unknown_key)
        return str(problem), line, col

    def locate(self, pointer: Sequence[str | int], *, key: bool = False) -> tuple[int, int]:
        """1-based (line, column) of the node at ``pointer`` (or its nearest existing parent)."""
        if not self.is_yaml:
            if self._tree is None:
                from averos_ci._jsonpos import JsonPositions

                self._tree = JsonPositions(self.text)
            return self._tree.locate(pointer, key=key)  # type: ignore[no-any-return]
        node = self._roundtrip_tree()
        pos = (1, 1)
        if node is None:
            return pos
        for i, part in enumerate(pointer):
            last = i == len(pointer) - 1
            lc = getattr(node, "lc", None)
            try:
                if isinstance(part, int) and isinstance(node, list):
                    if lc is not None:
                        line, col = lc.item(part)
                        pos = (line + 1, col + 1)
                    node = node[part]
                elif isinstance(node, dict) and (real := _real_key(node, part)) is not None:
                    if lc is not None:
                        line, col = lc.key(real) if (key and last) else lc.value(real)
                        pos = (line + 1, col + 1)
                    node = node[real]
                else:
                    if lc is not None and i == 0:
                        pos = (lc.line + 1, lc.col + 1)
                    break
            except (KeyError, IndexError, TypeError, AttributeError):
                break
        return pos


def _real_key(node: dict[Any, Any], part: str | int) -> Any:
    """The mapping's own key for ``part`` (YAML keys may be ints or bools: ``1: x``)."""
    if part in node:
        return part
    for k in node:
        if str(k) == str(part):
            return k
    return None


def ruamel() -> Any:
    from ruamel.yaml import YAML

    yaml = YAML(typ="rt", pure=True)
    yaml.allow_duplicate_keys = False
    return yaml
