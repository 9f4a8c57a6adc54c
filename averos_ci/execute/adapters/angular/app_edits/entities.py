"""``memberTag`` (ID, BusinessID) and ``deleteStrategy`` in the generated application.

Averos's newer generator re-tags the member ``@ID()`` / ``@BusinessID()`` and writes the
relation's strategy as ``@OneToMany('ToDoTask', import('./to-do-task'),
EntityRelationDeleteStrategy.DELETE_CHILDREN)``. @wiforge/averos 1.4.1 has ``ID()`` (the
runtime's ``getIdName`` is the decorated member), but no ``BusinessID`` and a ``OneToMany``
of two arguments with no delete strategy (node_modules/@wiforge/averos/fesm2020/
wiforge-averos.mjs: ``function OneToMany(itemClass, importedClass)``, ``function ID()``; its
export list has no ``BusinessID``). So:

- ID: ``@ID()`` moves from the generated ``id`` onto the tagged member (routes and service
  calls then carry it), and the service sends it under the backend's identifier key (the
  former ``@ID()`` member's name) unless a field mapping says otherwise (app_edits/keys.py);
- BusinessID: the model says it (``public static businessIdName``), the use-case pages
  name the record by it where Averos names it (their success and error messages, which the
  1.4.1 templates write with ``.name``), and the other entities' views show a related record
  by it (app_edits/labels.py);
- DELETE_CHILDREN / DELETE_CASCADE: the parent service's ``deleteEntity`` deletes the
  children through their own service first; KEEP_CHILDREN is 1.4.1's behaviour (the parent
  alone is deleted). The model's relation line records the strategy either way.

Where Averos 2 (``wiforge/averos``, not on npm) uses the two tags, which these edits follow:

- the BusinessID names the record in the pages' messages (and a related record in the result
  table: app_edits/labels.py): create, update,
  delete and relation updates, ``Entity ${…[getBusinessIdName(entityType)]}:entity: has been
  … successfully`` (packages/workflow/src/schematics/search-entity-uc/files/__ename@dasherize__/
  __ename@dasherize__-details/__ename@dasherize__-details.ts.template; the search page's delete
  in apps/averos-application/src/app/view/to-do-area/search-to-do-area/
  search-to-do-area.component.ts);
- the ID is the record's key in routes (``/todoareas/view/<id>``, ``…/edit/<id>`` from
  ``getEntityIdentifier``), ``trackBy`` and the service calls (``getIdName``), as 1.4.1's
  pages do with whatever member carries ``@ID()``;
- neither tag moves a column: the result table orders its columns by each view-layout entry's
  ``order`` (packages/ui-platform/src/view/components/view-components/averos-dynamic-table/
  averos-dynamic-table.component.ts, the ``viewLayout`` setter), and ``add-simple-member``
  gives a BusinessID member the next ``order`` like any member
  (packages/workflow/src/schematics/add-simple-member/index.ts). It writes no view-layout
  entry for a technicalId member; averos-ci keeps 1.4.1's (the ID stays a column and a form
  field): 1.4.1's create page sends what its form holds, and a backend that does not assign
  the identifier under the ID's key (json-server assigns only ``id``) would store the record
  without one.

Each edit is a pure function of the files and the node's args: re-running it rewrites nothing.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..edits import Edited
from ..files import read_text, source_relative
from ..strings import camelize, dasherize
from . import keys as entity_keys
from . import labels
from .labels import BUSINESS_ID as _BUSINESS

RUNTIME = "@wiforge/averos 1.4.1"
PROOF = "node_modules/@wiforge/averos/fesm2020/wiforge-averos.mjs"
_ID_LINE = re.compile(r"^[ \t]*@ID\(\)[ \t]*\r?\n(?=[ \t]*(\w+)!:)", re.M)
_SERVICE_IMPORT = re.compile(r"import \{ (\w+) \} from '\.\./service/([\w.-]+)';")
_ENTITY_NAME = re.compile(r"^([ \t]*)public static entityName = '\w+';(\r?\n)", re.M)
_ALERT_NAME = re.compile(r"\.name\}:entity:")
_ALERT_ANY = re.compile(r"\.\w+\}:entity:")
CHILDREN = ("DELETE_CHILDREN", "DELETE_CASCADE")


def _model(root: Path, entity: str) -> tuple[str, str | None]:
    relative = source_relative(root, f"app/model/{dasherize(entity)}.ts")
    return relative, read_text(root / relative) if (root / relative).is_file() else None


def _service_of(root: Path, model: str) -> tuple[str, str, str] | None:
    """(class, relative path, text) of the service a model's ``@AverosEntity`` names."""
    found = _SERVICE_IMPORT.search(model)
    if found is None:
        return None
    relative = source_relative(root, f"app/service/{found.group(2)}.ts")
    path = root / relative
    return (found.group(1), relative, read_text(path)) if path.is_file() else None


def _changed(root: Path, files: dict[str, str]) -> dict[str, str]:
    return {p: t for p, t in files.items() if not (root / p).is_file() or read_text(root / p) != t}


def member_tag(root: Path, args: Mapping[str, Any]) -> Edited:
    tag, entity = args.get("memberTag"), str(args["ename"])
    member = camelize(str(args["mname"]))
    if tag not in ("ID", "BusinessID"):
        return Edited()
    relative, model = _model(root, entity)
    if model is None or not re.search(rf"^[ \t]*{re.escape(member)}!:", model, re.M):
        return Edited(notes=(f"memberTag {tag}: {relative} declares no {member}",))
    if tag == "BusinessID":
        return business_id(root, entity, member, relative, model)
    return _identifier(root, member, relative, model)


def _identifier(root: Path, member: str, relative: str, model: str) -> Edited:
    newline = "\r\n" if "\r\n" in model else "\n"
    former = [m.group(1) for m in _ID_LINE.finditer(model)]
    text = _ID_LINE.sub("", model)
    text = re.sub(
        rf"^([ \t]*)({re.escape(member)}!:)", rf"\1@ID(){newline}\1\2", text, count=1, flags=re.M
    )
    files = {relative: text}
    service = _service_of(root, model)
    backend = next((f for f in former if f != member), "id")
    if service is not None:
        _, path, current = service
        keys = entity_keys.keys_of(current) or {}
        if member not in keys and backend != member:
            keys[member] = backend
        new = entity_keys.with_keys(current, keys, id_member=member)
        if new is not None:
            files[path] = new
    return Edited(files=_changed(root, files))


def business_id(root: Path, entity: str, member: str, relative: str, model: str) -> Edited:
    text = _BUSINESS.sub("", model)
    text = _ENTITY_NAME.sub(
        lambda m: f"{m.group(0)}{m.group(1)}public static businessIdName = '{member}';{m.group(2)}",
        text,
        count=1,
    )
    related = labels.composite_labels(root, {entity: member})
    files = {relative: text, **_views(root, entity, member), **related}
    return Edited(files=_changed(root, files))


def _views(root: Path, entity: str, member: str) -> dict[str, str]:
    folder = root / source_relative(root, f"app/view/{dasherize(entity)}")
    out: dict[str, str] = {}
    if not folder.is_dir():
        return out
    for path in sorted(folder.rglob("*.component.ts")):
        text = read_text(path)
        new = _ALERT_ANY.sub(f".{member}}}:entity:", text)
        if new != text:
            out[path.relative_to(root).as_posix()] = new
    return out


def business_views(root: Path, args: Mapping[str, Any]) -> Edited:
    """After a use case generated pages: name the records by the BusinessID member."""
    entity = args.get("ename")
    if not entity:
        return Edited()
    _, model = _model(root, str(entity))
    found = _BUSINESS.search(model or "")
    if found is None:
        return Edited()
    return Edited(files=_views(root, str(entity), found.group(1)))


def delete_strategy(root: Path, args: Mapping[str, Any]) -> Edited:
    strategy = args.get("deleteStrategy")
    if not strategy:
        return Edited()
    entity, child = str(args["ename"]), str(args["fename"])
    relative, model = _model(root, entity)
    member = str(args.get("memberName") or "")
    line = re.compile(
        rf"^([ \t]*@\w+\('{re.escape(child)}'[^\n]*?\b{re.escape(member)}!:[^\n;]*;)[^\r\n]*",
        re.M,
    )
    if model is None or not member or line.search(model) is None:
        return Edited(notes=(f"deleteStrategy {strategy}: {relative} declares no {member}",))
    text = line.sub(lambda m: f"{m.group(1)} // deleteStrategy: {strategy}", model, count=1)
    files = {relative: text}
    notes: tuple[str, ...] = ()
    if strategy in CHILDREN:
        done = _delete_children(root, model, entity, child, member, str(strategy))
        files.update(done.files)
        notes = done.notes
    return Edited(files=_changed(root, files), notes=notes)


_DELETE = re.compile(r"(  deleteEntity\(id: any\): Observable<any> \{\r?\n)(.*?)(\r?\n  \})", re.S)
_MARK = re.compile(
    r"// averos-ci: deleteStrategy (\w+): (\w+) \((\w+), (\w+), ([\w.-]+), ([\w.-]+)\)"
)
_API = re.compile(r"public\s+(\w+API)\s*=")


def _delete_children(
    root: Path, model: str, entity: str, child: str, member: str, strategy: str
) -> Edited:
    parent = _service_of(root, model)
    _, child_model = _model(root, child)
    found = _service_of(root, child_model or "")
    if parent is None or found is None:
        return Edited(
            notes=(
                f"deleteStrategy {strategy} of {entity}.{member}: "
                f"no generated service of {entity} or {child}",
            )
        )
    _, path, service = parent
    api = _API.search(service)
    deleting = _DELETE.search(service)
    if api is None or deleting is None:
        return Edited(notes=(f"deleteStrategy {strategy}: {path} has no generated deleteEntity",))
    child_file = Path(found[1]).stem
    mark = (strategy, member, child, found[0], dasherize(child), child_file)
    marks = sorted({*(m.groups() for m in _MARK.finditer(deleting.group(2))), mark})
    newline = "\r\n" if "\r\n" in service else "\n"
    body = newline.join(_body(marks, api.group(1)))
    text = service[: deleting.start(2)] + body + service[deleting.end(2) :]
    imports = [
        "import { forkJoin } from 'rxjs';",
        "import { ServiceLocator, TypeScriptTypeMetaDatatHandler } from '@wiforge/averos';",
        *(f"import {{ {m[2]} }} from '../model/{m[4]}';" for m in marks),
        *(f"import {{ {m[3]} }} from './{m[5]}';" for m in marks),
    ]
    missing = [i for i in dict.fromkeys(imports) if i not in text]
    if missing:
        text = newline.join(missing) + newline + text
    return Edited(files={path: text})


def _body(marks: list[tuple[str, ...]], api: str) -> list[str]:
    lines = [
        f"    // averos-ci: deleteStrategy {s}: {m} ({c}, {svc}, {mf}, {sf})"
        for s, m, c, svc, mf, sf in marks
    ]
    lines += [
        "    const childIds = (items: any, idName: string): any[] =>",
        "      (Array.isArray(items) ? items : [])",
        "      .map(c => (c !== null && typeof c === 'object') ? (c[idName] ?? c.id ?? c._id) : c)",
        "      .filter(c => c !== undefined && c !== null && c !== '');",
        "    return this.getEntityById(id).pipe(",
        "      mergeMap((parent: any) => {",
        "        const deletions: Observable<any>[] = [",
    ]
    for _, member, child, service, _mf, _sf in marks:
        lines += [
            f"          ...childIds(parent?.{member},",
            f"                      TypeScriptTypeMetaDatatHandler.instance.getIdName({child}))",
            f"            .map(cid => ServiceLocator.injector.get({service}).deleteEntity(cid)),",
        ]
    lines += [
        "        ];",
        "        return deletions.length > 0 ? forkJoin(deletions) : of([]);",
        "      }),",
        f"      mergeMap(() => this.httpClient.delete<any>(`${{this.{api}}}/${{id}}`)));",
    ]
    return lines
