"""YAML text -> data through ruamel.yaml (round-trip, so every node keeps its line and
column), refusing anchors and aliases, duplicate keys and absurd nesting; each refusal
located."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from averos_ci.source.document import Document, SourceError, ruamel

MAX_DEPTH = 200


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


def parse_yaml(text: str, path: Path) -> Document:
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    from averos_ci.source.syntax import YAML_SYNTAX_HINT, yaml_syntax
    from averos_ci.source.yaml_anchors import AnchorFound, composer_refusing_anchors

    if _flow_depth_exceeds(text, MAX_DEPTH):
        raise RecursionError
    yaml = ruamel()
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
