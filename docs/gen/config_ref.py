"""The configuration reference, from the pydantic models that read the files.

``averos.config.json`` (``averos_ci.config.ConfigFile``, defaults from ``RunConfig``), its
``github`` object (the GitHub settings model, wherever the forge refactor puts it), its
``policy`` object (``averos_ci.policy.settings``) and ``averos-ci.yaml``
(``averos_ci.projects.listfile``).
"""

from __future__ import annotations

import dataclasses
import importlib
import json
from enum import Enum
from pathlib import PurePath
from typing import Any

from pydantic import BaseModel

from docs.gen.markdown import code, table

# Where the GitHub settings model lives, newest layout first (it moves to forge/).
SETTINGS_MODULES = ("averos_ci.forge.settings",)


def github_settings_model() -> type[BaseModel]:
    for name in SETTINGS_MODULES:
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        model = getattr(module, "GitHubSettings", None)
        if isinstance(model, type) and issubclass(model, BaseModel):
            return model
    raise ImportError(f"no GitHubSettings model in {', '.join(SETTINGS_MODULES)}")


@dataclasses.dataclass(frozen=True)
class Key:
    name: str  # the JSON key (alias)
    type: str
    default: str
    description: str


def keys(
    model: type[BaseModel],
    *,
    defaults: dict[str, Any] | None = None,
) -> list[Key]:
    """One row per field of ``model``, by its JSON name. ``defaults`` (by Python name)
    replaces the model's own (``ConfigFile`` is all-optional; ``RunConfig`` holds them)."""
    schema = model.model_json_schema(by_alias=True, mode="validation")
    defs = schema.get("$defs", {})
    props = schema.get("properties", {})
    required = set(schema.get("required", []))
    out = []
    for name, field in model.model_fields.items():
        alias = field.alias or name
        prop = props.get(alias, {})
        if defaults is not None and name in defaults:
            default = _show(defaults[name])
        elif alias in required:
            default = "*(required)*"
        else:
            default = _show(field.get_default(call_default_factory=True))
        description = field.description or ""
        out.append(Key(alias, type_text(prop, defs), default, description))
    return out


def _show(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, Enum):
        value = value.value
    if isinstance(value, PurePath):
        value = value.as_posix()
    if isinstance(value, tuple):
        value = list(value)
    return code(json.dumps(value, ensure_ascii=False))


def type_text(prop: dict[str, Any], defs: dict[str, Any]) -> str:
    """A short, readable type from a JSON Schema property."""
    if "$ref" in prop:
        target = defs.get(prop["$ref"].rsplit("/", 1)[-1], {})
        return type_text(target, defs) if "enum" in target else "object"
    if "anyOf" in prop:
        parts = [type_text(p, defs) for p in prop["anyOf"] if p.get("type") != "null"]
        text = " or ".join(dict.fromkeys(parts))
    elif "enum" in prop:
        text = " or ".join(code(v) for v in prop["enum"])
    elif prop.get("type") == "array":
        text = "list of " + type_text(prop.get("items", {}), defs)
    elif prop.get("type") == "object" or not prop:
        text = "object" if prop else "any"
    else:
        text = {"integer": "integer", "number": "number", "string": "string"}.get(
            str(prop.get("type")), str(prop.get("type", "any"))
        )
    bounds = [
        f"{sign} {prop[k]}"
        for k, sign in (
            ("minimum", "≥"),
            ("exclusiveMinimum", ">"),
            ("maximum", "≤"),
            ("minLength", "length ≥"),
            ("maxLength", "length ≤"),
        )
        if k in prop
    ]
    return f"{text} ({', '.join(bounds)})" if bounds else text


def _rows(rows: list[Key]) -> list[str]:
    return table(
        ["key", "type", "default", "description"],
        [(code(k.name), k.type, k.default, k.description) for k in rows],
    )


def config_keys() -> list[Key]:
    from averos_ci.config import ConfigFile, RunConfig
    from averos_ci.execute.adapters.registry import adapter_name

    defaults = {f.name: _field_default(f) for f in dataclasses.fields(RunConfig)}
    defaults["adapter"] = adapter_name(defaults["adapter"])  # the registry says the default
    return keys(ConfigFile, defaults=defaults)


def _field_default(f: dataclasses.Field[Any]) -> Any:
    if f.default is not dataclasses.MISSING:
        return f.default
    if f.default_factory is not dataclasses.MISSING:
        return f.default_factory()
    return None


def github_keys() -> list[Key]:
    return keys(github_settings_model())


def policy_keys() -> tuple[list[Key], list[Key]]:
    from averos_ci.policy.settings import PolicySettings, ProtectedElement

    return keys(PolicySettings), keys(ProtectedElement)


def project_list_keys() -> tuple[list[Key], list[Key]]:
    from averos_ci.projects.listfile import ProjectEntry, ProjectList

    return keys(ProjectList), keys(ProjectEntry)


def render() -> str:
    from averos_ci.config import AVEROS_ONLY_KEYS, AVEROS_ONLY_PREFIXES, CONFIG_FILE_NAME

    policy, protected = policy_keys()
    listing, entry = project_list_keys()
    averos_only = ", ".join(code(k) for k in sorted(AVEROS_ONLY_KEYS))
    prefixes = ", ".join(code(p + "*") for p in AVEROS_ONLY_PREFIXES)
    lines = [
        "# Configuration",
        "",
        "<!-- Generated from the pydantic models by docs/gen/config_ref.py: do not edit. -->",
        "",
        "Every key of every file averos-ci reads, generated from the models that read them: "
        "the key, its type, its default and what it does.",
        "",
        f"## {CONFIG_FILE_NAME} {{#averos-config-json}}",
        "",
        "One file per project: Averos's keys, plus averos-ci's. Every key is optional. "
        "Precedence: command-line flag > config file > default. Paths are relative to the "
        "config file; paths given on the command line are relative to the current directory.",
        "",
        *_rows(config_keys()),
        "Unknown keys are warnings (`CFG-01`), except a near miss of a known key (`adpter`): "
        "a located error with a did-you-mean. Wrong types are located errors "
        "(`file:line:col: /key: message`, exit 2). Averos's documented value forms are "
        'accepted with a warning naming the canonical form (`CFG-02`): `"true"`/`"false"` '
        "for `development`, digit strings for `timeoutMs` and `maxAttempts`. The keys of "
        f"Averos's `generate` (LLM) command are accepted silently and not used: {averos_only}, "
        f"and any {prefixes}.",
        "",
        "## github",
        "",
        "The `github` object of `averos.config.json`: how the GitHub flow behaves. Settings "
        "marked *read from the base* decide whose approval counts, so a pull request cannot "
        "change them for itself: they are read from the config file as of the commit it "
        "merges into. Unknown keys are warnings.",
        "",
        *_rows(github_keys()),
        "## policy",
        "",
        "The `policy` object of `averos.config.json`: what a plan may do, and who may approve "
        "it (see [Policy](../how-to/policy.md)). In CI it is read from the base branch. "
        "Unknown keys are errors.",
        "",
        *_rows(policy),
        "### protectedElements entries",
        "",
        'A string is `{"match": <string>, "permission": "maintain"}`; an object sets both:',
        "",
        *_rows(protected),
        "## averos-ci.yaml {#averos-ci-yaml}",
        "",
        "At the repository root: an explicit list of projects that replaces discovery (see "
        "[Many projects in one repository](../how-to/monorepo.md)). Unknown keys are errors.",
        "",
        *_rows(listing),
        "### projects entries",
        "",
        *_rows(entry),
    ]
    return "\n".join(lines).rstrip() + "\n"
