"""Where a plan node's element is written in the manifest: the JSON pointer (to use in an
``edit_manifest`` patch) and its line and column."""

from __future__ import annotations

from typing import Any

from averos_ci.source import Document, Pointer, pointer_str

# phase -> (list key, keys that may hold the element's name); nested phases add a second level.
_TOP: dict[str, tuple[str, tuple[str, ...]]] = {
    "entity": ("entities", ("name",)),
    "use-case": ("useCases", ("name",)),
    "page": ("blankPages", ("name",)),
    "mapping": ("fieldMappings", ("name",)),
    "service-config": ("serviceConfigurations", ("id", "name")),
    "auth": ("authentication", ("providerType", "name")),
    "translation": ("languages", ("languageCode",)),
}
_NESTED: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "simple-field": ("entity", "members", ("mname",)),
    "composite-field": ("entity", "members", ("memberName",)),
    "translation-entry": ("translation", "translationEntries", ("localeID",)),
}


def locate_node(doc: Document, node_id: str) -> dict[str, Any] | None:
    """``{"pointer", "line", "column"}`` of the element, or ``None`` when it cannot be found."""
    base: Pointer = ()
    data = doc.data
    project = data.get("project") if isinstance(data, dict) else None
    if isinstance(project, dict) and isinstance(project.get("averosApplication"), dict):
        base, data = ("project", "averosApplication"), project["averosApplication"]
    phase, _, rest = node_id.partition(":")
    found: Pointer | None
    if phase == "application":
        found = ()
    elif node_id == "auth:http-auth-config":
        found = ("httpAuthConfig",) if "httpAuthConfig" in data else None
    elif phase in _TOP:
        found = _find(data, (), *_TOP[phase], rest)
    elif phase in _NESTED:
        parent_phase, key, names = _NESTED[phase]
        owner, _, name = rest.rpartition(":")
        parent = _find(data, (), *_TOP[parent_phase], owner)
        found = None if parent is None else _find(_at(data, parent), parent, key, names, name)
    else:
        found = None
    if found is None:
        return None
    pointer = (*base, *found)
    line, column = doc.locate(pointer)
    return {"pointer": pointer_str(pointer), "line": line, "column": column}


def _at(data: Any, pointer: Pointer) -> Any:
    for part in pointer:
        data = data[part]
    return data


def _find(data: Any, at: Pointer, key: str, names: tuple[str, ...], value: str) -> Pointer | None:
    items = data.get(key) if isinstance(data, dict) else None
    if not isinstance(items, list):
        return None
    for i, item in enumerate(items):
        if isinstance(item, dict) and any(item.get(n) == value for n in names):
            return (*at, key, i)
    return None
