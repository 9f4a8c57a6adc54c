"""Loading JSON / YAML documents safely, keeping the line and column of every node.

JSON goes through the stdlib parser (fast); ruamel.yaml is used for YAML and, lazily, to
locate nodes of a JSON document when a finding needs a line and column. Hostile input is
reported as :class:`SourceError` with a stable SYN-xx code, never a traceback.
"""

from __future__ import annotations

import json
import re
import stat
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from averos_ci._validation import first_problem
from averos_ci._validation import pointer_str as pointer_str
from averos_ci.errors import InputError

if TYPE_CHECKING:
    from pydantic import ValidationError

DEFAULT_MAX_BYTES = 10 * 1024 * 1024
MAX_DEPTH = 200

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
                self._tree = _ruamel().load(self.text)
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


def _ruamel() -> Any:
    from ruamel.yaml import YAML

    yaml = YAML(typ="rt", pure=True)
    yaml.allow_duplicate_keys = False
    return yaml


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
        doc = _parse_yaml(text, path) if is_yaml else _parse_json(text, path)
    except RecursionError:
        raise SourceError(
            "SYN-05",
            f"{what} nests too deeply",
            path=path,
            hint="a manifest never nests this deeply: check the file",
        ) from None
    if _SURROGATE_ESCAPE.search(text):
        _refuse_lone_surrogates(doc.data, text, path)
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


def _parse_json(text: str, path: Path) -> Document:
    try:
        data = json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_bad_constant)
    except json.JSONDecodeError as exc:
        from averos_ci._syntax import json_syntax  # a failure's: not on every `validate`

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
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def _refuse_lone_surrogates(data: Any, text: str, path: Path) -> None:
    try:
        json.dumps(data, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        for match in _SURROGATE_ESCAPE.finditer(text):
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


_FLOW_BRACKET = re.compile(r"[\[\]{}]")


def _flow_depth_exceeds(text: str, limit: int) -> bool:
    """Cheap pre-check: ruamel's scanner is quadratic in flow-collection depth, so a 10 kB file
    of nested brackets would take a minute to reject. Brackets inside strings count too, which
    can only make this stricter for absurd inputs."""
    depth = 0
    for match in _FLOW_BRACKET.finditer(text):
        depth += 1 if match.group() in "[{" else -1
        if depth > limit:
            return True
    return False


def _locate_duplicate(text: str, path: Path) -> tuple[int, int]:
    try:
        _ruamel().load(text)
    except Exception as exc:
        mark = getattr(exc, "problem_mark", None)
        if mark is not None:
            return mark.line + 1, mark.column + 1
    return 1, 1


def _parse_yaml(text: str, path: Path) -> Document:
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    from averos_ci._syntax import YAML_SYNTAX_HINT, yaml_syntax
    from averos_ci._yaml_anchors import AnchorFound, composer_refusing_anchors

    if _flow_depth_exceeds(text, MAX_DEPTH):
        raise RecursionError
    yaml = _ruamel()
    yaml.Composer = composer_refusing_anchors()
    try:
        tree = yaml.load(text)
    except AnchorFound as found:
        # Anchors and aliases are refused outright: this rejects billion-laughs files
        # before anything is constructed, and a manifest never needs them.
        raise SourceError(
            "SYN-07",
            f"YAML anchors and aliases are not allowed (&{found.anchor} / *{found.anchor})",
            path=path,
            line=found.line,
            column=found.column,
            hint="write the value out in full",
        ) from None
    except MarkedYAMLError as exc:
        problem = (exc.problem or exc.context or "invalid YAML").strip()
        if "duplicate key" in problem or "found duplicate" in str(exc):
            mark = exc.problem_mark or exc.context_mark
            raise SourceError(
                "SYN-06",
                "duplicate key " + _dup_key_name(str(exc)),
                path=path,
                line=(mark.line + 1) if mark else None,
                column=(mark.column + 1) if mark else None,
            ) from None
        said = yaml_syntax(exc)
        raise SourceError("SYN-05", said.message, path=path, line=said.line,
                          column=said.column, hint=said.hint) from None  # fmt: skip
    except YAMLError as exc:
        raise SourceError(
            "SYN-05", f"invalid YAML: {exc}", path=path, hint=YAML_SYNTAX_HINT
        ) from None
    content = [ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    if tree is None and not [ln for ln in content if ln.strip() not in {"---", "..."}]:
        raise SourceError(
            "SYN-04", "document is empty (comments only)", path=path, line=1, column=1
        )
    data = _plain(tree, 0)
    return Document(path=path, text=text, data=data, is_yaml=True, _tree=tree, _tree_loaded=True)


def _dup_key_name(message: str) -> str:
    marker = 'found duplicate key "'
    start = message.find(marker)
    if start < 0:
        return ""
    rest = message[start + len(marker) :]
    return repr(rest[: rest.find('"')])


def _plain(node: Any, depth: int) -> Any:
    if depth > MAX_DEPTH:
        raise RecursionError
    if isinstance(node, dict):
        return {
            str(k) if not isinstance(k, str) else k: _plain(v, depth + 1) for k, v in node.items()
        }
    if isinstance(node, list):
        return [_plain(v, depth + 1) for v in node]
    if isinstance(node, bool) or node is None:
        return node
    if isinstance(node, int):
        return int(node)
    if isinstance(node, float):
        return float(node)
    if isinstance(node, str):
        return str(node)
    import datetime as _dt  # YAML dates only: not on every `validate`

    if isinstance(node, _dt.date | _dt.datetime):
        return node.isoformat()
    return str(node)
