"""Canonical JSON (sorted keys, compact): the one encoder of every hashed or persisted document
(plans, states, pristine trees), hashed in pieces, and the plan's item encodings.

A plan of 5,000 entities has ~240,000 nodes and diff entries, ~70 MB of JSON. The planHash
hashes their canonical encoding, and the JSON rendering writes the same encoding of each one
(one per line): :func:`item_json` encodes each once, and both use it (:data:`ItemJson`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator, Mapping
from typing import Any

# id of a list of the plan's wire (its nodes, a diff bucket: alive in the wire) -> the compact
# canonical JSON of each of its items, in order. The wire is read-only: the texts stay true.
ItemJson = Mapping[int, list[str]]

_ENCODER = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)
compact = _ENCODER.encode


def canonical_json(value: object) -> str:
    """Canonical JSON: sorted keys, no insignificant white space, trailing newline."""
    return compact(value) + "\n"


def _item_encoder() -> Callable[[Any], str]:
    """``compact`` for dicts and lists, by one C encoder kept for all of them: ``encode``
    builds a new one per call, a third of the time of encoding a plan node."""
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:  # no C accelerator: the pure-Python encoder
        return compact
    enc = make(
        None,  # no cycle check: a plan's wire is a tree
        _ENCODER.default,
        json.encoder.encode_basestring,  # ensure_ascii=False
        None,  # no indent
        ":",
        ",",
        True,  # sort_keys
        False,  # skipkeys
        True,  # allow_nan
    )
    return lambda value: "".join(enc(value, 0))  # the same text as ``compact``


_encode_item = _item_encoder()

_BATCH = 256  # list items encoded per piece: few encoder calls, small pieces


def item_json(*lists: list[Any]) -> dict[int, list[str]]:
    """The compact canonical JSON of every item of ``lists`` (see :data:`ItemJson`)."""
    return {id(items): [_encode_item(item) for item in items] for items in lists}


def carried(items: ItemJson, before: object, after: object) -> dict[int, list[str | None]]:
    """``items`` (the texts of ``before``'s lists) for ``after``, a copy of ``before`` with some
    items replaced (a masked wire): the text of each item it kept, the very same object, and
    ``None`` for the others."""
    out: dict[int, list[str | None]] = {}
    if isinstance(before, list) and isinstance(after, list):
        texts = items.get(id(before))
        if texts is not None and len(after) == len(texts):
            kept = zip(texts, after, before, strict=True)
            out[id(after)] = [t if a is b else None for t, a, b in kept]
    elif isinstance(before, dict) and isinstance(after, dict):
        for key, value in before.items():
            if key in after:
                out.update(carried(items, value, after[key]))
    return out


def sha256_json(value: object, *, items: ItemJson | None = None) -> str:
    """The sha256 of :func:`canonical_json` (the same bytes), hashed
    piece by piece: a large plan's canonical JSON is tens of MB, and building it whole (text,
    then bytes) doubled the planner's peak memory for a moment. ``items``: encodings already
    made of some list items (used as they are)."""
    digest = hashlib.sha256()
    for piece in _canonical_pieces(value, 3, items or {}):
        digest.update(piece.encode())
    digest.update(b"\n")
    return digest.hexdigest()


def _canonical_pieces(value: object, depth: int, items: ItemJson) -> Iterator[str]:
    """``canonical_json(value)`` without its newline, in pieces (dicts split by key down to
    ``depth`` levels, long lists in batches of items; what json.dumps writes for them, key
    order included: the encoder writes a part of a value as it writes the whole)."""
    if depth == 0 or not isinstance(value, dict | list) or not _str_keys(value):
        yield _encode_item(value)
    elif isinstance(value, list):
        texts = items.get(id(value))
        yield "["
        for i in range(0, len(value), _BATCH):
            if texts is not None:
                text = ",".join(texts[i : i + _BATCH])
            else:
                text = _encode_item(value[i : i + _BATCH])[1:-1]
            yield ("," if i else "") + text
        yield "]"
    else:
        yield "{"
        for i, (k, v) in enumerate(sorted(value.items())):
            yield f"{',' if i else ''}{compact(k)}:"
            yield from _canonical_pieces(v, depth - 1, items)
        yield "}"


def _str_keys(value: dict[Any, Any] | list[Any]) -> bool:
    # json.dumps sorts other keys (ints...) before turning them into strings: leave it to it
    return isinstance(value, list) or all(type(k) is str for k in value)
