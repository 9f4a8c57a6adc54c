"""Operations @wiforge/averos 1.4.x has no schematic for, done as direct, idempotent edits.

They upsert keyed entries into two JSON files of the generated app (created on first use):

- ``src/assets/environment/env-config.json``: application settings, service
  configurations, authentication providers and the HTTP authentication config;
- ``src/assets/entity/entity-config.json``: field mappings, ID/BusinessID member tags and
  composite members' delete strategies.

Each edit is a pure function of the current file and the node's args, so re-running a node
rewrites identical bytes (sorted keys, two-space indent, trailing newline).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

ENV_CONFIG = "src/assets/environment/env-config.json"
ENTITY_CONFIG = "src/assets/entity/entity-config.json"
FORMAT_VERSION = 1

Doc = dict[str, Any]
Edit = Callable[[Path, Mapping[str, Any]], dict[str, str]]


def _load(root: Path, relative: str) -> Doc:
    path = root / relative
    if not path.is_file():
        return {"formatVersion": FORMAT_VERSION}
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise ValueError(f"{relative} does not hold a JSON object")
    return data


def _dump(doc: Doc) -> str:
    return json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def _section(doc: Doc, *keys: str) -> Doc:
    for key in keys:
        value = doc.get(key)
        if not isinstance(value, dict):
            value = {}
            doc[key] = value
        doc = value
    return doc


def _pairs(value: Any, key: str, val: str) -> dict[str, Any]:
    """``[{key: k, value: v}]`` or ``{k: v}`` -> ``{k: v}``."""
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, list):
        return {str(item[key]): item.get(val) for item in value if isinstance(item, Mapping)}
    return {}


def application_settings(root: Path, args: Mapping[str, Any]) -> dict[str, str]:
    doc = _load(root, ENV_CONFIG)
    app = _section(doc, "application")
    for key in (
        "applicationName",
        "description",
        "defaultLanguageCode",
        "enableAuthentication",
        "enableExternalEntityMapping",
        "defaultAuthenticationProvider",
    ):
        if key in args:
            app[key] = args[key]
    return {ENV_CONFIG: _dump(doc)}


def service_configuration(root: Path, args: Mapping[str, Any]) -> dict[str, str]:
    doc = _load(root, ENV_CONFIG)
    _section(doc, "serviceConfigurations")[str(args["name"])] = dict(args)
    return {ENV_CONFIG: _dump(doc)}


def authentication_provider(root: Path, args: Mapping[str, Any]) -> dict[str, str]:
    doc = _load(root, ENV_CONFIG)
    providers = _section(doc, "authentication", "providers")
    providers[str(args["name"])] = {
        "providerType": args.get("providerType"),
        "config": _pairs(args.get("config"), "key", "value"),
    }
    return {ENV_CONFIG: _dump(doc)}


def http_auth_config(root: Path, args: Mapping[str, Any]) -> dict[str, str]:
    doc = _load(root, ENV_CONFIG)
    _section(doc, "authentication")["httpAuthConfig"] = dict(args)
    return {ENV_CONFIG: _dump(doc)}


def field_mapping(root: Path, args: Mapping[str, Any]) -> dict[str, str]:
    doc = _load(root, ENTITY_CONFIG)
    entity = _section(doc, "entities", str(args["ename"]))
    _section(entity, "fieldMappings")[str(args["name"])] = _pairs(
        args.get("mapping"), "fieldKey", "mapTo"
    )
    return {ENTITY_CONFIG: _dump(doc)}


def member_tag(root: Path, args: Mapping[str, Any]) -> dict[str, str]:
    """ID / BusinessID tags: add-simple-member has no option for them."""
    tag = args.get("memberTag")
    if tag not in ("ID", "BusinessID"):
        return {}
    doc = _load(root, ENTITY_CONFIG)
    _section(doc, "entities", str(args["ename"]), "memberTags")[str(args["mname"])] = tag
    return {ENTITY_CONFIG: _dump(doc)}


def delete_strategy(root: Path, args: Mapping[str, Any]) -> dict[str, str]:
    """add-composite-member has no option for the delete strategy."""
    strategy = args.get("deleteStrategy")
    if not strategy:
        return {}
    doc = _load(root, ENTITY_CONFIG)
    member = str(args.get("memberName") or args["fename"])
    _section(doc, "entities", str(args["ename"]), "deleteStrategies")[member] = strategy
    return {ENTITY_CONFIG: _dump(doc)}


def translation_value(root: Path, args: Mapping[str, Any]) -> dict[str, str]:
    """add-translation-entry only adds missing keys (it never changes a value): set it.

    Written the way the schematic writes the file (``JSON.stringify``: compact, key order
    kept), so that the result is the same whichever of the two wrote the value.
    """
    from .mapping import app_dir  # mapping imports this module

    relative = app_dir(root).parent / "assets" / "i18n" / f"{args['lang']}.json"
    if not relative.is_file():
        return {}
    data = json.loads(relative.read_text(encoding="utf-8"))
    key = str(args["key"]).lower()  # the schematic lower-cases keys (toLocaleLowerCase)
    if not isinstance(data, dict) or data.get(key) == args["value"]:
        return {}
    data[key] = args["value"]
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return {relative.relative_to(root).as_posix(): text}
