"""Name rules: manifest names become file names and TypeScript identifiers."""

from __future__ import annotations

import re
from functools import lru_cache

MAX_NAME_LENGTH = 64
PASCAL = re.compile(r"^[A-Z][A-Za-z0-9]*\Z")
IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*\Z")
LOCALE_ID = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.\-]*\Z")

# ECMAScript reserved words (incl. strict mode) and names TypeScript refuses as identifiers.
RESERVED = frozenset(
    [
        "break",
        "case",
        "catch",
        "class",
        "const",
        "continue",
        "debugger",
        "default",
        "delete",
        "do",
        "else",
        "enum",
        "export",
        "extends",
        "false",
        "finally",
        "for",
        "function",
        "if",
        "import",
        "in",
        "instanceof",
        "new",
        "null",
        "return",
        "super",
        "switch",
        "this",
        "throw",
        "true",
        "try",
        "typeof",
        "var",
        "void",
        "while",
        "with",
        "implements",
        "interface",
        "let",
        "package",
        "private",
        "protected",
        "public",
        "static",
        "yield",
        "await",
        "arguments",
        "eval",
        "undefined",
        "constructor",
    ]
)
# Averos derives camelCase variables and class names from entity names; these would shadow
# JavaScript globals in the generated code.
GLOBAL_CLASHES = frozenset(
    [
        "Object",
        "Array",
        "String",
        "Number",
        "Boolean",
        "Date",
        "Map",
        "Set",
        "Promise",
        "Error",
        "Symbol",
        "Function",
        "Math",
        "JSON",
        "Record",
        "Partial",
        "Component",
        "Injectable",
        "NgModule",
    ]
)

# The language codes the Averos 1.4 schematics accept (add-language / add-translation-entry).
LANGUAGE_CODES = frozenset({"ar", "cn", "en", "es", "fr", "de", "jp", "nl", "no", "ru", "se"})

MEMBER_TYPES = frozenset(
    {"enumeration", "string", "number", "boolean", "date", "textarea", "password", "phone"}
)
RELATION_TYPES = frozenset({"OneToOne", "OneToMany", "ManyToOne"})
USE_CASE_TYPES = frozenset({"CRUD", "Create_Entity", "Search_Entity"})
DELETE_STRATEGIES = frozenset({"DELETE_CHILDREN", "KEEP_CHILDREN", "NULLIFY"})
MEMBER_TAGS = frozenset({"ID", "BusinessID"})
TAGGABLE_TYPES = frozenset({"string", "number"})
TARGET_MENUS = frozenset({"side", "top", "both"})
TARGET_SPACES = frozenset({"logged", "public"})
API_PROTOCOLS = frozenset({"http", "https"})


@lru_cache(maxsize=4096)  # a large manifest repeats its member names in every entity
def name_problem(name: str, *, pascal: bool) -> tuple[str, str] | None:
    """(code, message) if ``name`` cannot be used, else None."""
    if "/" in name or "\\" in name or ".." in name or "\x00" in name:
        return "CON-06", f"name {name!r} contains a path separator or '..'"
    if not name:
        return "CON-02", "name is empty"
    if len(name) > MAX_NAME_LENGTH:
        return (
            "CON-04",
            f"name {name[:20]!r}… is {len(name)} characters (at most {MAX_NAME_LENGTH})",
        )
    if pascal and not PASCAL.match(name):
        return "CON-02", f"name {name!r} is not a PascalCase identifier"
    if not pascal and not IDENTIFIER.match(name):
        return "CON-03", f"name {name!r} is not an identifier"
    if name in RESERVED or (pascal and (name.lower() in RESERVED or name in GLOBAL_CLASHES)):
        return "CON-05", f"name {name!r} is a TypeScript/JavaScript reserved word"
    return None
