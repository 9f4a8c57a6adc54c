"""The values a GitHub Actions expression can take: a small evaluator of ``if:`` conditions
and ``${{ }}`` fields, for the rules that must hold on every event a workflow runs on.

An expression evaluates to the *set* of values it can take. A context the workflow does not
fix (event data, a step's output, an input) is :class:`Opaque` — maybe empty, maybe anything
an attacker chose; the workflow's own commit (``github.sha``, the default branch) is
:class:`Own`. ``||`` and ``&&`` keep GitHub's semantics (they return an operand), so
``cond && github.event.repository.default_branch || ''`` is ``{Own, ''}`` or ``{''}``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Own:
    """A value naming the workflow's own commit (``github.sha``, the default branch)."""

    name: str


@dataclass(frozen=True)
class Opaque:
    """A value the workflow does not fix (event data, outputs): maybe empty, maybe anything."""

    name: str


Value = str | bool | float | None | Own | Opaque
OWN_NAMES = frozenset(
    {"github.sha", "github.workflow_sha", "github.ref", "github.ref_name",
     "github.event.repository.default_branch"}
)  # fmt: skip
TOKEN = re.compile(
    r"\s*(?:(?P<str>'(?:[^']|'')*')|(?P<num>\d+(?:\.\d+)?)|(?P<op>&&|\|\||==|!=|<=|>=|[!<>(),])"
    r"|(?P<name>[A-Za-z_][\w.*\-]*(?:\[[^\]]*\][\w.*\-]*)*))"
)
EXPR = re.compile(r"\$\{\{(.*?)\}\}", re.DOTALL)


def truth(value: Value) -> bool | None:
    if isinstance(value, Opaque):
        return None
    if isinstance(value, Own):
        return True
    return bool(value)


class Expression:
    """Evaluates one expression to the set of values it can take, given a ``lookup`` of
    context names (``github.event_name`` …) to their possible values. An expression it cannot
    read raises :class:`ValueError`."""

    def __init__(self, text: str, lookup: Callable[[str], set[Value]]) -> None:
        self.tokens: list[tuple[str, str]] = []
        pos, text = 0, text.strip()
        while pos < len(text):
            m = TOKEN.match(text, pos)
            if not m or m.end() == pos:
                raise ValueError(f"cannot read the expression {text!r} at {pos}")
            kind = m.lastgroup or ""
            self.tokens.append((kind, m.group(kind)))
            pos = m.end()
        self.lookup, self.at = lookup, 0

    def values(self) -> set[Value]:
        found = self._or()
        if self.at != len(self.tokens):
            raise ValueError(f"unexpected {self.tokens[self.at][1]!r} in an expression")
        return found

    def _peek(self) -> str:
        return self.tokens[self.at][1] if self.at < len(self.tokens) else ""

    def _take(self) -> tuple[str, str]:
        if self.at >= len(self.tokens):
            raise ValueError("an expression ends too early")
        self.at += 1
        return self.tokens[self.at - 1]

    def _expect(self, text: str) -> None:
        if self._take()[1] != text:
            raise ValueError(f"expected {text!r} in an expression")

    def _or(self) -> set[Value]:
        left = self._and()
        while self._peek() == "||":
            self._take()
            right = self._and()
            left = {x for v in left for x in _either(v, right)}
        return left

    def _and(self) -> set[Value]:
        left = self._compare()
        while self._peek() == "&&":
            self._take()
            right = self._compare()
            left = {x for v in left for x in _both(v, right)}
        return left

    def _compare(self) -> set[Value]:
        left = self._unary()
        if self._peek() in ("==", "!=", "<", ">", "<=", ">="):
            op = self._take()[1]
            right = self._unary()
            return {r for a in left for b in right for r in _compared(op, a, b)}
        return left

    def _unary(self) -> set[Value]:
        if self._peek() == "!":
            self._take()
            return {r for v in self._unary() for r in _negated(v)}
        return self._primary()

    def _primary(self) -> set[Value]:
        kind, text = self._take()
        if text == "(":
            inner = self._or()
            self._expect(")")
            return inner
        if kind == "str":
            return {text[1:-1].replace("''", "'")}
        if kind == "num":
            return {float(text)}
        if text in ("true", "false"):
            return {text == "true"}
        if text == "null":
            return {None}
        if self._peek() == "(":  # a function call
            self._take()
            args = []
            while self._peek() not in (")", ""):
                args.append(self._or())
                if self._peek() == ",":
                    self._take()
            self._expect(")")
            return _called(text.lower(), args)
        return self.lookup(text)


def _either(value: Value, right: set[Value]) -> set[Value]:
    """``value || right``: the value when truthy, the right side when falsy; both unknown."""
    t = truth(value)
    return {value} if t else right if t is False else {value} | right


def _both(value: Value, right: set[Value]) -> set[Value]:
    """``value && right``: the right side when truthy, the value when falsy; both unknown."""
    t = truth(value)
    return right if t else {value} if t is False else {value} | right


def _negated(value: Value) -> set[Value]:
    t = truth(value)
    return {True, False} if t is None else {not t}


def _compared(op: str, a: Value, b: Value) -> set[Value]:
    if isinstance(a, Opaque | Own) or isinstance(b, Opaque | Own):
        return {True, False}
    if op in ("==", "!="):
        same = (a.lower() == b.lower()) if isinstance(a, str) and isinstance(b, str) else a == b
        return {same if op == "==" else not same}
    return {True, False}  # ordering: never needed to decide the rule


def _called(name: str, args: list[set[Value]]) -> set[Value]:
    if name == "always":
        return {True}
    fixed = [next(iter(a)) for a in args if len(a) == 1]
    if name == "format" and len(fixed) == len(args) >= 1 and all(isinstance(v, str) for v in fixed):
        # fixed text only (the action's cache-scope condition); anything else stays Opaque
        pattern, values = str(fixed[0]), [str(v) for v in fixed[1:]]
        numbers = [int(n) for n in re.findall(r"\{(\d+)\}", pattern)]
        if "{{" not in pattern and all(n < len(values) for n in numbers):
            return {re.sub(r"\{(\d+)\}", lambda m: values[int(m.group(1))], pattern)}
    if name in ("success", "failure", "cancelled", "contains", "startswith", "endswith"):
        return {True, False}
    return {Opaque(f"{name}()")}


def context(event: str) -> Callable[[str], set[Value]]:
    def lookup(name: str) -> set[Value]:
        if name == "github.event_name":
            # a reusable workflow sees its caller's event: any of them
            return {Opaque(name)} if event == "workflow_call" else {event}
        if name in OWN_NAMES:
            return {Own(name)}
        if name == "github.repository":
            return {"owner/repo"}
        return {Opaque(name)}

    return lookup


def possible(text: object, event: str) -> set[Value]:
    """The values a workflow field (plain text, or with ``${{ }}``) can take on ``event``."""
    if text is None:
        return {None}
    if not isinstance(text, str):
        return {str(text)}
    whole = EXPR.fullmatch(text.strip())
    if whole:
        return Expression(whole.group(1), context(event)).values()
    if not EXPR.search(text):
        return {text}
    parts = [Expression(e, context(event)).values() for e in EXPR.findall(text)]
    if any(isinstance(v, Opaque | Own) for part in parts for v in part):
        return {Opaque(text)}  # built around a value the workflow does not fix
    return {Opaque(text)} if any(len(p) > 1 for p in parts) else {EXPR.sub("", text)}


def may_run(condition: object, event: str) -> bool:
    if condition is None:
        return True
    text = str(condition).strip()
    whole = EXPR.fullmatch(text)
    found = Expression(whole.group(1) if whole else text, context(event)).values()
    return any(truth(v) is not False for v in found)
