"""The ``edit_manifest`` tool: a JSON Patch applied to a manifest in the working tree.

YAML is patched in ruamel's round-trip tree, so comments, key order, quoting and the sequence
indentation survive; JSON keeps its key order and indentation. The patched text is validated
as a whole before anything is written; an invalid result writes nothing.
"""

from __future__ import annotations

import difflib
import io
import json
import re
from pathlib import Path
from typing import Any

from averos_ci._fs import atomic_write_text
from averos_ci.manifest.issues import ManifestInvalid
from averos_ci.mcp.jsonpatch import apply_patch
from averos_ci.mcp.workspace import Workspace
from averos_ci.source import SourceError, load_document, parse_document


def edit_manifest(
    ws: Workspace, *, path: str, patch: list[Any], project: str | None = None
) -> dict[str, Any]:
    """Patch, validate, write atomically, then plan. Raises (writing nothing) on a bad patch or
    an invalid result."""
    from averos_ci.manifest.validate import validate_document
    from averos_ci.mcp.planning import plan_summary

    target = ws.manifest(path, project=project)
    doc = load_document(target, max_bytes=ws.max_bytes, what="manifest")  # hostile input refused
    old = doc.text
    serialized = _patched_yaml(old, patch) if doc.is_yaml else _patched_json(old, patch)
    new = _keep_untouched_lines(old, serialized, target=target, is_yaml=doc.is_yaml)
    if len(new.encode("utf-8")) > ws.max_bytes:
        raise SourceError(
            "SYN-02",
            f"the patched manifest is over the {ws.max_bytes}-byte limit",
            path=ws.relative(target),
        )
    result = validate_document(parse_document(new.encode("utf-8"), path=target, what="manifest"))
    if not result.valid:
        raise ManifestInvalid(result.issues)
    if new != old:
        atomic_write_text(target, new)
    rel = ws.relative(target)
    return {
        "path": rel,
        "changed": new != old,
        "diff": "".join(
            difflib.unified_diff(
                old.splitlines(keepends=True), new.splitlines(keepends=True), rel, rel
            )
        ),
        "warnings": [i.to_dict() for i in result.issues],
        "plan": plan_summary(ws, path=rel, project=project),
    }


def _keep_untouched_lines(old: str, new: tuple[str, str], *, target: Path, is_yaml: bool) -> str:
    """The serializer normalizes what it rewrites (``{ a: b }`` -> ``{a: b}``, float digits):
    the lines the patch did not change are taken from the original, so the diff shows only the
    change. ``new`` is (the unpatched document re-serialized, the patched one). Used only when
    the result provably holds the same data as the patched document."""
    before, after = new
    old_lines = old.splitlines(keepends=True)
    before_lines = before.splitlines(keepends=True)
    if len(old_lines) != len(before_lines):
        return after
    after_lines = after.splitlines(keepends=True)
    merged: list[str] = []
    matcher = difflib.SequenceMatcher(None, before_lines, after_lines, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        merged.extend(old_lines[i1:i2] if tag == "equal" else after_lines[j1:j2])
    text = "".join(merged)
    try:
        same = _data(text, target, is_yaml) == _data(after, target, is_yaml)
    except SourceError:
        same = False
    return text if same else after


def _data(text: str, target: Path, is_yaml: bool) -> Any:
    suffix = ".yaml" if is_yaml else ".json"
    return parse_document(text.encode("utf-8"), path=target.with_suffix(suffix)).data


def _patched_yaml(text: str, patch: list[Any]) -> tuple[str, str]:
    from ruamel.yaml import YAML
    from ruamel.yaml.util import load_yaml_guess_indent

    _, indent, offset = load_yaml_guess_indent(text)
    yaml = YAML(typ="rt", pure=True)
    yaml.preserve_quotes = True
    yaml.width = 4096  # never re-wrap the user's long lines
    yaml.indent(mapping=2, sequence=indent or 2, offset=offset or 0)
    yaml.explicit_start = text.lstrip().startswith("---")
    tree = yaml.load(text)
    before = io.StringIO()
    yaml.dump(tree, before)
    tree = apply_patch(tree, patch)
    _match_flow_style(tree)
    after = io.StringIO()
    yaml.dump(tree, after)
    return before.getvalue(), after.getvalue()


def _match_flow_style(node: Any) -> None:
    """A mapping the patch added to a list of one-line ``{…}`` mappings (all of them) is
    written the same way."""
    from ruamel.yaml.comments import CommentedMap

    if isinstance(node, dict):
        for value in node.values():
            _match_flow_style(value)
    elif isinstance(node, list):
        styled_maps = [i for i in node if isinstance(i, CommentedMap)]
        flow = bool(styled_maps) and all(i.fa.flow_style() for i in styled_maps)
        for index, item in enumerate(node):
            if flow and type(item) is dict:
                styled = CommentedMap(item)
                styled.fa.set_flow_style()
                node[index] = styled
            _match_flow_style(node[index])


_INDENT = re.compile(r"^[{\[]\s*\n([ \t]+)\S")


def _patched_json(text: str, patch: list[Any]) -> tuple[str, str]:
    match = _INDENT.match(text.lstrip("\ufeff"))
    indent: str | int | None = match.group(1) if match else None
    if indent is None and "\n" in text.strip():
        indent = 2
    end = "\n" if text.endswith("\n") else ""
    data = json.loads(text)
    before = json.dumps(data, indent=indent, ensure_ascii=False) + end
    data = apply_patch(data, patch)
    return before, json.dumps(data, indent=indent, ensure_ascii=False) + end
