"""RFC 6902 JSON Patch over plain or ruamel round-trip containers.

Written here rather than taken from a library because the document it patches is ruamel's
``CommentedMap``/``CommentedSeq``: they are ``dict``/``list`` subclasses, and patching them in
place is what keeps a YAML manifest's comments and layout. (``jsonpatch`` deep-copies into plain
objects and loses them.) Every failure is a :class:`PatchError` naming the operation's index.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

from averos_ci.errors import InputError

OPS = ("add", "remove", "replace", "move", "copy", "test")
_HINT = "see RFC 6902: each operation is {op, path[, value | from]}, paths are JSON pointers"


class PatchError(InputError):
    """The patch is malformed or does not apply to the document (nothing is written)."""


def parse_pointer(pointer: str, *, where: str) -> list[str]:
    """RFC 6901: ``""`` is the whole document, ``/a/0/b~1c`` is ``["a", "0", "b/c"]``."""
    if pointer == "":
        return []
    if not pointer.startswith("/"):
        raise PatchError(f"{where}: {pointer!r} is not a JSON pointer (it starts with '/')")
    return [p.replace("~1", "/").replace("~0", "~") for p in pointer[1:].split("/")]


def apply_patch(doc: Any, patch: Sequence[Any]) -> Any:
    """Apply ``patch`` to ``doc`` in place where it can (the root may be replaced: the result is
    the patched document). Atomic for the caller only if they patch a copy or discard ``doc``
    on error."""
    if not isinstance(patch, list | tuple):
        raise PatchError("a JSON Patch is a list of operations", hint=_HINT)
    for index, op in enumerate(patch):
        where = f"patch/{index}"
        if not isinstance(op, dict):
            raise PatchError(f"{where}: an operation is an object", hint=_HINT)
        name = op.get("op")
        if name not in OPS:
            raise PatchError(f"{where}: unknown op {name!r} (one of {', '.join(OPS)})", hint=_HINT)
        if not isinstance(op.get("path"), str):
            raise PatchError(f"{where}: 'path' (a JSON pointer string) is required", hint=_HINT)
        path = parse_pointer(op["path"], where=where)
        if name in ("add", "replace", "test") and "value" not in op:
            raise PatchError(f"{where}: {name!r} needs a 'value'", hint=_HINT)
        if name in ("move", "copy"):
            if not isinstance(op.get("from"), str):
                raise PatchError(f"{where}: {name!r} needs 'from' (a JSON pointer)", hint=_HINT)
            source = parse_pointer(op["from"], where=where)
            if name == "move" and path[: len(source)] == source and path != source:
                raise PatchError(f"{where}: cannot move a value into one of its own children")
            value = _get(doc, source, where)
            if name == "move":
                doc = _remove(doc, source, where)
            doc = _add(doc, path, copy.deepcopy(value) if name == "copy" else value, where)
        elif name == "add":
            doc = _add(doc, path, copy.deepcopy(op["value"]), where)
        elif name == "remove":
            doc = _remove(doc, path, where)
        elif name == "replace":
            doc = _replace(doc, path, copy.deepcopy(op["value"]), where)
        elif not _equal(_get(doc, path, where), op["value"]):
            raise PatchError(f"{where}: test failed: the value at {op['path']!r} differs")
    return doc


def _index(container: list[Any], token: str, where: str, *, append: bool) -> int:
    if append and token == "-":
        return len(container)
    if not token.isdigit() or (token != "0" and token.startswith("0")):
        raise PatchError(f"{where}: {token!r} is not an array index")
    i = int(token)
    if i > len(container) or (i == len(container) and not append):
        raise PatchError(f"{where}: index {i} is out of range (the array has {len(container)})")
    return i


def _parent(doc: Any, path: list[str], where: str) -> Any:
    return _get(doc, path[:-1], where)


def _get(doc: Any, path: list[str], where: str) -> Any:
    node = doc
    for depth, token in enumerate(path):
        shown = "/" + "/".join(path[: depth + 1])
        if isinstance(node, dict):
            if token not in node:
                raise PatchError(f"{where}: {shown!r} does not exist")
            node = node[token]
        elif isinstance(node, list):
            node = node[_index(node, token, where, append=False)]
        else:
            raise PatchError(f"{where}: {shown!r} does not exist (its parent is a scalar)")
    return node


def _add(doc: Any, path: list[str], value: Any, where: str) -> Any:
    if not path:
        return value
    parent, token = _parent(doc, path, where), path[-1]
    if isinstance(parent, dict):
        parent[token] = value
    elif isinstance(parent, list):
        parent.insert(_index(parent, token, where, append=True), value)
    else:
        raise PatchError(f"{where}: cannot add below a scalar")
    return doc


def _replace(doc: Any, path: list[str], value: Any, where: str) -> Any:
    """In place: the key keeps its position (and its comments) in the mapping."""
    _get(doc, path, where)  # the target must exist
    if not path:
        return value
    parent, token = _parent(doc, path, where), path[-1]
    if isinstance(parent, dict):
        parent[token] = value
    else:
        parent[_index(parent, token, where, append=False)] = value
    return doc


def _remove(doc: Any, path: list[str], where: str) -> Any:
    if not path:
        raise PatchError(f"{where}: cannot remove the whole document")
    parent, token = _parent(doc, path, where), path[-1]
    if isinstance(parent, dict):
        if token not in parent:
            raise PatchError(f"{where}: {'/' + '/'.join(path)!r} does not exist")
        del parent[token]
    elif isinstance(parent, list):
        del parent[_index(parent, token, where, append=False)]
    else:
        raise PatchError(f"{where}: cannot remove below a scalar")
    return doc


def _equal(a: Any, b: Any) -> bool:
    """JSON equality: 1 == 1.0, but True != 1, and key order does not matter."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    return bool(a == b)
