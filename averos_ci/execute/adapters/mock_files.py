"""What the ``mock`` adapter writes with ``"writeFiles": true``: small deterministic files
derived from the nodes, shaped like a generated application (a model file per entity with a
line per member, a page per use case, a routes file and a menu listing them, a translations
file per language). A removal, a type change or a rename changes these files the way it changes
a real application, so regeneration and the three-way merge can be tested without Angular.

Like a schematic, a node adds to files earlier nodes wrote (a member is a line inserted in its
entity's file, a route a line in the routes file): a clean generation is the nodes in plan
order, from nothing.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from averos_ci.execute.contracts import RuntimeMutation
from averos_ci.plan.model import PlanNode

ROUTES = "src/app/app.routes.ts"
MENU = "src/app/menu.ts"
_END = "}\n"


def kebab(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "-", name).lower()


def model_path(entity: str) -> str:
    return f"src/app/model/{kebab(entity)}.ts"


def write_node(node: PlanNode, root: Path) -> RuntimeMutation:
    """Write ``node``'s files under ``root``; what was created and updated."""
    files = _Files(root)
    a: dict[str, Any] = node.args
    prefix = node.id.partition(":")[0]
    if prefix == "application":
        files.create("src/app/app.ts", f"// application {a.get('applicationName')}\n")
        files.create(ROUTES, "export const routes = [\n];\n")
        files.create(MENU, "export const menu = [\n];\n")
    elif prefix == "entity":
        name = a["name"]
        service = f"  // service {a['sname']}\n" if a.get("sname") else ""
        files.create(model_path(name), f"export class {name} {{\n{service}{_END}")
    elif prefix == "simple-field":
        line = f"  {a['mname']}?: {_type(a)};"
        if a.get("memberTag"):
            line += f" // {a['memberTag']}"
        files.insert(model_path(a["ename"]), line + "\n")
    elif prefix == "composite-field":
        many = "[]" if a["fieldRelationType"] == "OneToMany" else ""
        line = f"  {a['memberName']}?: {a['fename']}{many}; // {a['fieldRelationType']}\n"
        files.insert(model_path(a["ename"]), line)
    elif prefix == "use-case":
        page = f"src/app/pages/{kebab(a['name'])}.page.ts"
        files.create(
            page, f"// {node.command} page for {a['ename']}\nexport const page = '{a['name']}';\n"
        )
        files.insert(
            ROUTES, f"  {{ path: '{kebab(a['name'])}', entity: '{a['ename']}' }},\n", "];\n"
        )
        files.insert(MENU, f"  '{a['name']}',\n", "];\n")
    elif prefix == "page":
        name = str(a.get("name", node.id.partition(":")[2]))
        files.create(f"src/app/pages/{kebab(name)}.blank.ts", f"// blank page {name}\n")
        files.insert(MENU, f"  '{name}',\n", "];\n")
    elif prefix == "translation":
        files.create(_i18n(a["languageCode"]), "")
    elif prefix == "translation-entry":
        files.append(_i18n(a["lang"]), f"{a['key']}={a['value']}\n")
    else:  # service configurations, mappings, authentication: one file of settings each
        name = node.id.partition(":")[2].replace(":", "-")
        body = "".join(f"{k}={a[k]}\n" for k in sorted(a))
        files.create(f"src/app/config/{prefix}/{name}.txt", body)
    return RuntimeMutation(created=tuple(files.created), updated=tuple(files.updated))


def _type(args: dict[str, Any]) -> str:
    values = args.get("listOfEnumValues")
    if isinstance(values, str):
        values = [v.strip() for v in values.split(",")]
    if values:
        return " | ".join(f"'{v}'" for v in values)
    return str(args["memberType"])


def _i18n(lang: str) -> str:
    return f"src/assets/i18n/{lang}.txt"


def _write(path: Path, text: str) -> None:
    # a scratch workspace: durability is the checkpoints' job (as for the schematics' writes)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


class _Files:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.created: list[str] = []
        self.updated: list[str] = []

    def create(self, rel: str, text: str) -> None:
        path = self.root / rel
        (self.updated if path.exists() else self.created).append(rel)
        _write(path, text)

    def insert(self, rel: str, line: str, before: str = _END) -> None:
        """``line`` before the last ``before`` line (a member before the class's brace)."""
        path = self.root / rel
        text = path.read_text("utf-8") if path.exists() else before
        at = text.rfind(before)
        text = text + line if at < 0 else text[:at] + line + text[at:]
        self.updated.append(rel)
        _write(path, text)

    def append(self, rel: str, line: str) -> None:
        path = self.root / rel
        text = path.read_text("utf-8") if path.exists() else ""
        self.updated.append(rel)
        _write(path, text + line)
