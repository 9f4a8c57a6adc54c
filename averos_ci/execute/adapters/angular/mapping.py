"""The one table from plan commands to what realizes them: a schematic or a built-in edit.

A schematic entry says how node args become the schematic's options (camelCase, as in its
schema.json; the per-process runner dasherizes them for `ng generate`), how to tell that
its effect is already in the workspace (most Averos 1.4.x schematics fail when re-run; see
the README's angular-schematics section), and which built-in edit completes it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import edits, runtime_config
from .app_edits import authentication, labels
from .app_edits import entities as entity_settings
from .files import Files, exists, source_root
from .strings import camelize, classify, dasherize

Args = Mapping[str, Any]
Options = dict[str, Any]


def _app(files: Files) -> str:
    return f"{source_root(files)}/app"


def _entity_file(files: Files, entity: str) -> str:
    return f"{_app(files)}/model/{dasherize(entity)}.ts"


def declares(files: Files, entity: str, member: str) -> bool:
    text = files.read(_entity_file(files, entity))
    if text is None:
        return False
    # decorated members sit on the decorator's line: `@OneToMany(...) toDoTasks!: ToDoTask[];`
    pattern = rf"(?:^|[\s)]){re.escape(member)}\s*[!?]?\s*:"
    return re.search(pattern, text, re.MULTILINE) is not None


def composite_member_name(args: Args) -> str:
    """add-composite-member derives the member's name; it has no option to choose it."""
    base = camelize(str(args["fename"]))
    return base if args.get("fieldRelationType") in ("OneToOne", "ManyToOne") else base + "s"


def _component(files: Files, folder: str, name: str) -> bool:
    d = dasherize(name)
    return exists(files, f"{_app(files)}/view/{folder}/{d}/{d}.component.ts")


def _page(files: Files, name: str) -> bool:
    d = dasherize(name)
    return exists(files, f"{_app(files)}/view/{d}/{d}.component.ts")


def _drop_none(values: Mapping[str, Any]) -> Options:
    return {k: v for k, v in values.items() if v is not None and v != ""}


@dataclass(frozen=True)
class Schematic:
    schematic: str
    options: Callable[[Args], Options]
    present: Callable[[Files, Args], bool] | None = None  # None: the schematic is idempotent
    post_edit: edits.Edit | None = None
    check: Callable[[Args], str | None] | None = None  # a reason the collection cannot do it
    # A composite schematic whose parts are partly present: the one part left to run alone.
    remaining: Callable[[Files, Args], tuple[str, Options] | None] | None = None


@dataclass(frozen=True)
class BuiltinEdit:
    edit: edits.Edit


@dataclass(frozen=True)
class Bootstrap:
    """``ng new`` + ``ng add`` (or a cached template), then the application settings edit."""

    edit: edits.Edit = runtime_config.application_settings


Operation = Schematic | BuiltinEdit | Bootstrap


def _use_case_pages(root: Path, args: Args) -> edits.Edited:
    """After a schematic registered pages: their routes' guard (app_edits/authentication.py) and the
    records named by their BusinessID member (app_edits/entities.py)."""
    opened = authentication.open_routes(root, args)
    named = entity_settings.business_views(root, args)
    return edits.Edited(files={**opened.files, **named.files}, notes=opened.notes + named.notes)


def _composite_member(root: Path, args: Args) -> edits.Edited:
    """After add-composite-member: the relation's delete strategy (app_edits/entities.py) and
    its label, the related entity's BusinessID (app_edits/labels.py)."""
    strategy = runtime_config.delete_strategy(root, args)
    related = labels.composite_labels(root)
    return edits.Edited(files={**related, **strategy.files}, notes=strategy.notes)


def _simple_member_options(a: Args) -> Options:
    values = {"ename": a["ename"], "mname": a["mname"], "memberType": a["memberType"]}
    if a["memberType"] == "enumeration":
        values["listOfEnumValues"] = a.get("listOfEnumValues")
    return _drop_none(values)


def _composite_check(a: Args) -> str | None:
    wanted, derived = a.get("memberName"), composite_member_name(a)
    if wanted and wanted != derived:
        return (
            f"add-composite-member names the member {derived!r} (from fename and "
            f"fieldRelationType) and has no option to name it {wanted!r}"
        )
    return None


def _crud_remaining(files: Files, a: Args) -> tuple[str, Options] | None:
    """advanced-crud chains create-entity-uc ``Create<E>`` and search-entity-uc ``Search<E>``
    (after averos-entity when the model is missing). When a Create_Entity or Search_Entity use
    case of the same name already generated one of them, advanced-crud fails in Averos 1.4.1
    ("A merge conflicted on path .../create-<e>.component.html"): the rest of its chain is run
    alone, as the node-by-node path kept the CRUD's page and skipped the single use case."""
    ename = str(a["ename"])
    if not exists(files, _entity_file(files, ename)):
        return None
    missing = [
        verb
        for verb in ("Create", "Search")
        if not _component(files, dasherize(ename), f"{verb}{classify(ename)}")
    ]
    if len(missing) != 1:
        return None  # none present: the whole chain; all present: `present` skips the node
    verb = missing[0]
    return f"{verb.lower()}-entity-uc", {"name": f"{verb}{classify(ename)}", "ename": ename}


OPERATIONS: dict[str, Operation] = {
    "ng-add": Bootstrap(),
    "averos-entity": Schematic(
        "averos-entity",
        lambda a: _drop_none({"name": a["name"], "sname": a.get("sname")}),
        present=lambda f, a: exists(f, _entity_file(f, str(a["name"]))),
    ),
    "averos-service": Schematic(
        "averos-service",
        lambda a: _drop_none({"name": a["name"], "ename": a.get("ename")}),
        present=lambda f, a: exists(f, f"{_app(f)}/service/{dasherize(str(a['name']))}.service.ts"),
    ),
    "add-simple-member": Schematic(
        "add-simple-member",
        _simple_member_options,
        present=lambda f, a: declares(f, str(a["ename"]), camelize(str(a["mname"]))),
        post_edit=runtime_config.member_tag,
    ),
    "add-composite-member": Schematic(
        "add-composite-member",
        lambda a: _drop_none(
            {
                "ename": a["ename"],
                "fename": a["fename"],
                "fieldRelationType": a["fieldRelationType"],
            }
        ),
        present=lambda f, a: declares(f, str(a["ename"]), composite_member_name(a)),
        post_edit=_composite_member,
        check=_composite_check,
    ),
    "advanced-crud": Schematic(
        "advanced-crud",
        lambda a: {"ename": a["ename"]},
        present=lambda f, a: all(
            _component(f, dasherize(str(a["ename"])), f"{verb}{a['ename']}")
            for verb in ("Create", "Search")
        ),
        post_edit=_use_case_pages,
        remaining=_crud_remaining,
    ),
    "create-entity-uc": Schematic(
        "create-entity-uc",
        lambda a: {"name": a["name"], "ename": a["ename"]},
        present=lambda f, a: _component(f, dasherize(str(a["ename"])), str(a["name"])),
        post_edit=_use_case_pages,
    ),
    "search-entity-uc": Schematic(
        "search-entity-uc",
        lambda a: {"name": a["name"], "ename": a["ename"]},
        present=lambda f, a: _component(f, dasherize(str(a["ename"])), str(a["name"])),
        post_edit=_use_case_pages,
    ),
    "create-page": Schematic(
        "create-page",
        lambda a: _drop_none(
            {
                "name": a["name"],
                "updateRouteMenu": a.get("updateRouteMenu"),
                "targetMenu": a.get("targetMenu"),
                "space": a.get("space"),
            }
        ),
        present=lambda f, a: _page(f, str(a["name"])),
        post_edit=authentication.open_routes,
    ),
    "add-language": Schematic("add-language", lambda a: {"languageCode": a["languageCode"]}),
    "add-translation-entry": Schematic(
        "add-translation-entry",
        lambda a: {"lang": a["lang"], "key": a["key"], "value": a["value"]},
        post_edit=edits.translation_value,
    ),
    "field-mapping": BuiltinEdit(runtime_config.field_mapping),
    "service-configuration": BuiltinEdit(runtime_config.service_configuration),
    "authentication-provider": BuiltinEdit(runtime_config.authentication_provider),
    "http-auth-config": BuiltinEdit(runtime_config.http_auth_config),
}


def cli_arguments(options: Options) -> list[str]:
    """Schematic options as `ng generate` flags: dash-case (camelCase flags are rejected)."""
    out = []
    for key, value in options.items():
        text = json.dumps(value) if isinstance(value, bool) else str(value)
        out.append(f"--{dasherize(key)}={text}")
    return out
