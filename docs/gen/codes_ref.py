"""The finding codes: every code the validator and the config loader emit, found in the code.

The codes live in the calls that report them (``r.error("CON-02", …)``, ``SourceError("SYN-01",
…)``, ``"warning CFG-01 …"``); this module finds them with ``ast``, with the severity the call
gives. What each means is written once, in ``MEANINGS`` below: the tests fail when the code
reports a code this table does not explain, or the table explains one the code never reports.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

from docs.gen.markdown import code, table

CODE = re.compile(r"\b(SYN|REF|CON|CFG)-\d\d\b")
PACKAGE = Path(__file__).resolve().parents[2] / "averos_ci"

MEANINGS = {
    "SYN-01": "file missing, a directory, or unreadable",
    "SYN-02": "file larger than `--max-bytes`",
    "SYN-03": "not UTF-8 (located at the first bad byte)",
    "SYN-04": "empty file",
    "SYN-05": "JSON / YAML syntax error, or absurd nesting",
    "SYN-06": "duplicate key",
    "SYN-07": "YAML anchor or alias (a manifest never needs them; 'billion laughs' files are "
    "harmless)",
    "SYN-08": "top level is not a mapping (a list or a scalar)",
    "SYN-10": 'wrong type (e.g. `apiPort: "3333"`, `enableAuthentication: "yes"`)',
    "SYN-11": "required key missing (`applicationName`, an entity's `name`, a member's `mname`, …)",
    "SYN-12": "unknown key (ignored, never silent, never fatal)",
    "SYN-13": "designer export without `project.averosApplication`",
    "REF-01": "a member's `ename` does not name the entity that contains it",
    "REF-02": "a composite member's `fename` names no entity",
    "REF-03": "an entity's `sname` matches no service configuration `id` (also when there are "
    "none)",
    "REF-04": "a field mapping's `ename` names no entity",
    "REF-05": "a field mapping's `fieldKey` is not a member of its entity (`_entity…` "
    "built-ins allowed)",
    "REF-06": "a `services[]` entry's `ename` names no entity",
    "REF-07": "a translation entry's `targetEntity` names no entity or use case",
    "REF-08": "`defaultAuthenticationProvider` matches no `authentication[].providerType`",
    "REF-09": "a use case's `ename` names no entity",
    "REF-10": "`defaultLanguageCode` has no `languages` entry",
    "CON-01": "duplicate name: entities, members within an entity, use cases, services, "
    "service configurations (name and id), pages, field mappings, providers, languages, "
    "localeIDs within a language",
    "CON-02": "entity / service / use case / page / application name is not a PascalCase "
    "identifier",
    "CON-03": "member name is not an identifier (`[A-Za-z_][A-Za-z0-9_]*`)",
    "CON-04": "name longer than 64 characters",
    "CON-05": "name is a JavaScript/TypeScript reserved word (or, for PascalCase names, "
    "shadows a JS global such as `Object`)",
    "CON-06": "name contains `/`, `\\`, `..` or NUL (names become file names)",
    "CON-07": "enumeration without values, a value that is not an identifier, or a repeated value",
    "CON-08": "unknown `memberNature`, `memberType`, `fieldRelationType`, `deleteStrategy`, "
    "`useCaseType`, `targetMenu` or `targetSpace`",
    "CON-09": "more than one `ID` (or `BusinessID`) member in an entity, a tag on a type other "
    "than string/number, or an unknown tag",
    "CON-10": "language code not supported by Averos (ar, cn, de, en, es, fr, jp, nl, no, ru, se)",
    "CON-11": "`enableAuthentication: true` without `defaultAuthenticationProvider`",
    "CON-12": "`apiProtocol` other than http / https",
    "CON-13": "`localeID` is not a dotted key",
    "CON-14": "`listOfEnumValues` on a member that is not an enumeration",
    "CON-15": "`renamedFrom` equal to the element's own name (an invalid `renamedFrom` name "
    "gets the CON-02…CON-06 codes)",
    "CON-16": "a composite `memberName` differs from the name the Averos 1.4 schematic derives "
    "(`camelize(fename)`, plus `s` for OneToMany)",
    "CFG-01": "`averos.config.json`: unknown key (ignored)",
    "CFG-02": "`averos.config.json`: an Averos value form accepted as its canonical value "
    '(`"development": "true"`); also an unknown `github` key',
}


@dataclass(frozen=True)
class Finding:
    code: str
    severities: frozenset[str]  # "error", "warning"; empty when the call does not say
    where: tuple[str, ...]  # modules that report it


def scan(package: Path = PACKAGE) -> dict[str, Finding]:
    """Every finding code written in the package's code (docstrings and comments aside)."""
    found: dict[str, tuple[set[str], set[str]]] = {}
    for path in sorted(package.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        module = path.relative_to(package.parent).with_suffix("").as_posix().replace("/", ".")
        docstrings = _docstrings(tree)
        for node in ast.walk(tree):
            if not isinstance(node, ast.Constant) or not isinstance(node.value, str):
                continue
            if id(node) in docstrings:
                continue
            for match in CODE.finditer(node.value):
                severities, modules = found.setdefault(match.group(0), (set(), set()))
                modules.add(module)
                severity = _severity(node, tree, node.value)
                if severity:
                    severities.add(severity)
    return {c: Finding(c, frozenset(s), tuple(sorted(m))) for c, (s, m) in sorted(found.items())}


def _docstrings(tree: ast.Module) -> set[int]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                out.add(id(body[0].value))
    return out


def _severity(const: ast.Constant, tree: ast.Module, text: str) -> str | None:
    if re.search(r"\bwarning\s+" + CODE.pattern, text):
        return "warning"
    if re.search(r"\berror\s+" + CODE.pattern, text):
        return "error"
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and node.args and node.args[0] is const:
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name in ("error", "warning"):
                return name
            if name.endswith("Error"):
                return "error"
    return None


def render() -> str:
    findings = scan()
    rows = []
    for c, f in findings.items():
        severity = " / ".join(sorted(f.severities)) or "error"
        rows.append((f"<span id='{c.lower()}'></span>{code(c)}", severity, MEANINGS.get(c, "")))
    lines = [
        "# Finding codes",
        "",
        "<!-- Generated from the code by docs/gen/codes_ref.py: do not edit. -->",
        "",
        "`averos-ci validate` (and every command that reads a manifest) reports located "
        "findings: `file:line:col: error CODE message`, then a `hint:` line. Each code is "
        "stable. `SYN` codes are about the file and its shape, `REF` about references between "
        "elements, `CON` about constraints on values (as Averos's REF-xx and CON-xx), `CFG` "
        "about `averos.config.json`. Errors exit 2; warnings never fail.",
        "",
        *table(["code", "severity", "meaning"], rows),
        "The real Averos ToDo designer export validates with no findings.",
    ]
    return "\n".join(lines) + "\n"
