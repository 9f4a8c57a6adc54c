"""The finding codes, read from the validator's own source: every place that emits a code
(``report.error("REF-01", f"…", at, hint=…)``, ``SourceError("SYN-02", …)``, a
``("CON-02", "…")`` pair, a ``{"CON-05": "hint"}`` table) becomes an entry with its severity,
its message templates and its hints. Nothing is copied by hand, so it cannot fall behind."""

from __future__ import annotations

import ast
import functools
import importlib
import inspect
import pkgutil
import re
from dataclasses import dataclass, field

CODE = re.compile(r"^(SYN|REF|CON)-\d{2}$")
FAMILIES = {
    "SYN": "the file itself: it cannot be read or parsed as a manifest, or a key has the "
    "wrong type or is missing",
    "REF": "a reference: a name that must point at another element of the manifest",
    "CON": "a constraint on a value: names, enumerations, tags, languages, settings",
}
_MODULES = (
    "averos_ci.source",
    "averos_ci.manifest.validate",
    "averos_ci.manifest.names",
)
_RULES = "averos_ci.manifest.rules"  # a package: one module per family of rules


def _modules() -> list[str]:
    rules = importlib.import_module(_RULES)
    return [
        *_MODULES,
        _RULES,
        *(f"{_RULES}.{m.name}" for m in pkgutil.iter_modules(rules.__path__)),
    ]


@dataclass
class CodeInfo:
    code: str
    severity: set[str] = field(default_factory=set)
    messages: list[str] = field(default_factory=list)
    hints: list[str] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)  # module:line

    def to_wire(self) -> dict[str, object]:
        return {
            "code": self.code,
            "family": FAMILIES[self.code[:3]],
            "severity": sorted(self.severity) or ["error"],
            "messages": self.messages,
            "hints": self.hints,
            "emittedAt": self.sources,
        }


@functools.cache
def code_table() -> dict[str, CodeInfo]:
    table: dict[str, CodeInfo] = {}
    for name in _modules():
        module = importlib.import_module(name)
        tree = ast.parse(inspect.getsource(module))
        for node in ast.walk(tree):
            _visit(node, name, table)
    return dict(sorted(table.items()))


def _code_of(node: ast.AST | None) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and CODE.match(node.value):
        return node.value
    return None


def _template(node: ast.AST | None) -> str | None:
    """A message as written: f-string fields shown as ``{…}``."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(str(v.value) if isinstance(v, ast.Constant) else "{…}" for v in node.values)
    return None


def _entry(table: dict[str, CodeInfo], code: str, module: str, line: int) -> CodeInfo:
    info = table.setdefault(code, CodeInfo(code))
    where = f"{module}:{line}"
    if where not in info.sources:
        info.sources.append(where)
    return info


def _add(items: list[str], value: str | None) -> None:
    if value and value not in items:
        items.append(value)


def _visit(node: ast.AST, module: str, table: dict[str, CodeInfo]) -> None:
    if isinstance(node, ast.Call) and node.args and (code := _code_of(node.args[0])):
        info = _entry(table, code, module, node.lineno)
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        info.severity.add("warning" if name == "warning" else "error")
        if len(node.args) > 1:
            _add(info.messages, _template(node.args[1]))
        for kw in node.keywords:
            if kw.arg == "hint":
                _add(info.hints, _template(kw.value))
    elif isinstance(node, ast.Tuple) and len(node.elts) == 2 and (code := _code_of(node.elts[0])):
        info = _entry(table, code, module, node.lineno)
        info.severity.add("error")
        _add(info.messages, _template(node.elts[1]))
    elif isinstance(node, ast.Dict):
        for key, value in zip(node.keys, node.values, strict=True):
            if code := _code_of(key):
                _add(_entry(table, code, module, node.lineno).hints, _template(value))
