"""Loading JSON / YAML documents safely, keeping the line and column of every node.

JSON goes through the stdlib parser (fast, :mod:`.json_text`); ruamel.yaml is used for YAML
(:mod:`.yaml_text`) and, lazily, to locate nodes of a JSON document when a finding needs a line
and column (:mod:`.document`). Hostile input is reported as :class:`SourceError` with a stable
SYN-xx code, never a traceback.
"""

from __future__ import annotations

import stat
from pathlib import Path

from averos_ci._validation import pointer_str as pointer_str
from averos_ci.source.document import Document, Pointer, SourceError
from averos_ci.source.json_text import SURROGATE_ESCAPE, parse_json, refuse_lone_surrogates
from averos_ci.source.yaml_text import parse_yaml

__all__ = [
    "DEFAULT_MAX_BYTES",
    "Document",
    "Pointer",
    "SourceError",
    "load_document",
    "parse_document",
    "pointer_str",
]

DEFAULT_MAX_BYTES = 10 * 1024 * 1024


def load_document(
    path: str | Path, *, max_bytes: int = DEFAULT_MAX_BYTES, what: str = "document"
) -> Document:
    path = Path(path)
    too_big = SourceError(
        "SYN-02",
        f"{what} is over the {max_bytes}-byte limit",
        path=path,
        hint="split the file or raise the limit with --max-bytes",
    )
    try:
        if path.is_dir():
            raise SourceError(
                "SYN-01", f"{what} path is a directory", path=path, hint="pass the file itself"
            )
        st = path.stat()
        if not stat.S_ISREG(st.st_mode):  # FIFOs hang, devices never end
            raise SourceError("SYN-01", f"{what} is not a regular file", path=path)
        if st.st_size > max_bytes:
            too_big.message = f"{what} is {st.st_size} bytes, over the {max_bytes}-byte limit"
            raise too_big
        with path.open("rb") as f:
            raw = f.read(max_bytes + 1)  # the file may grow between stat and read
        if len(raw) > max_bytes:
            raise too_big
    except FileNotFoundError:
        raise SourceError(
            "SYN-01",
            f"{what} not found",
            path=path,
            hint="check the path",
        ) from None
    except OSError as exc:
        raise SourceError("SYN-01", f"cannot read {what}: {exc.strerror}", path=path) from None
    return parse_document(raw, path=path, what=what)


def parse_document(raw: bytes, *, path: Path, what: str = "document") -> Document:
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        line_start = raw.rfind(b"\n", 0, exc.start) + 1
        col = len(raw[line_start : exc.start].decode("utf-8", errors="replace")) + 1
        raise SourceError(
            "SYN-03",
            f"{what} is not valid UTF-8 (byte 0x{raw[exc.start]:02x})",
            path=path,
            line=line,
            column=col,
            hint="save the file as UTF-8",
        ) from None
    if not text.strip():
        raise SourceError("SYN-04", f"{what} is empty", path=path, line=1, column=1)
    is_yaml = path.suffix.lower() in {".yaml", ".yml"} or not text.lstrip().startswith(("{", "["))
    try:
        doc = parse_yaml(text, path) if is_yaml else parse_json(text, path)
    except RecursionError:
        raise SourceError(
            "SYN-05",
            f"{what} nests too deeply",
            path=path,
            hint="a manifest never nests this deeply: check the file",
        ) from None
    if SURROGATE_ESCAPE.search(text):
        refuse_lone_surrogates(doc.data, text, path)
    if not isinstance(doc.data, dict):
        kind = {list: "list", type(None): "null"}.get(type(doc.data), type(doc.data).__name__)
        raise SourceError(
            "SYN-08",
            f"{what} must be a mapping at the top level, not a {kind}",
            path=path,
            line=1,
            column=1,
        )
    return doc
