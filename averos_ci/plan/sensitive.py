"""Sensitive values: which element args hold credentials, and how they are kept out of outputs.

A rule is ``<node id glob>/<arg glob>`` (``auth:*/config``: every authentication provider's
``config``). The built-in rules always apply; a config's ``sensitive`` list adds more. The
planner flags the matching attributes (``sensitive: true``) so every renderer prints
``(sensitive)``; :func:`mask_wire` masks the plan JSON (attribute values and node args);
:func:`scrubber` removes the secret strings from free text (failure messages, node logs) in
every form a tool or a renderer may print them (JSON- or markdown-escaped, URL-encoded, shell-
quoted: :mod:`averos_ci._secrets`).

The planHash is computed over the real values, so it changes when a secret changes; the
masked marker carries no digest of the value (a digest of a short secret is a guessing
oracle), the ``~`` mark and the changed entry names show that it changed.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from fnmatch import translate
from typing import Any

from averos_ci import _secrets

MASK = _secrets.MASK
DEFAULT_RULES: tuple[str, ...] = ("auth:*/config",)  # provider config: keys, secrets, realms
# Node id prefixes a rule can name (Averos's node kinds).
NODE_PREFIXES = (
    "application",
    "entity",
    "simple-field",
    "composite-field",
    "mapping",
    "service-config",
    "use-case",
    "page",
    "auth",
    "translation",
    "translation-entry",
)
# Free text keeps short values (``true``, ``5``): replacing them everywhere would garble every
# message while hiding nothing a guess would not find.
MIN_SCRUB_CHARS = _secrets.MIN_CHARS
RULE_HINT = (
    'write "<node id glob>/<arg>", e.g. "service-config:*/apiHost" or '
    '"auth:GoogleAuthProvider/config" (docs/how-to/read-a-plan.md#sensitive-values)'
)


class RuleError(ValueError):
    """A ``sensitive`` rule that cannot match anything (message says why)."""


@dataclass(frozen=True)
class _Rule:
    node: re.Pattern[str]
    arg: re.Pattern[str]


def check_rule(rule: str) -> None:
    """Raise :class:`RuleError` unless ``rule`` is ``<node id glob>/<arg glob>`` naming a kind."""
    node, sep, arg = rule.rpartition("/")
    if not sep or not node or not arg:
        raise RuleError(f"{rule!r} is not <node id glob>/<arg>")
    if node.startswith("/"):
        raise RuleError(f"{rule!r} starts with '/': rules name plan nodes, not manifest paths")
    head, colon, _ = node.partition(":")
    probe = head if colon else None
    if not any(
        re.fullmatch(translate(probe), p) if probe is not None else _could_match(node, p)
        for p in NODE_PREFIXES
    ):
        raise RuleError(
            f"{rule!r} names no node kind (node ids start with one of: {', '.join(NODE_PREFIXES)})"
        )


def _could_match(glob: str, prefix: str) -> bool:
    return re.fullmatch(translate(glob), f"{prefix}:x") is not None


class SensitiveRules:
    """The built-in rules plus ``extra``; answers "which args of this node are sensitive"."""

    def __init__(self, extra: Iterable[str] = ()) -> None:
        self.extra = tuple(extra)
        self._rules = tuple(_compile(r) for r in (*DEFAULT_RULES, *self.extra))

    @classmethod
    def of_execution(cls, execution: Mapping[str, Any] | None) -> SensitiveRules:
        """The rules a plan was computed with (its ``execution.sensitive``)."""
        extra = (execution or {}).get("sensitive") or ()
        if not isinstance(extra, list | tuple):  # a hand-edited plan file: no extra rules
            return cls()
        return cls(str(r) for r in extra)

    def fields(self, node_id: str, args: Mapping[str, Any]) -> frozenset[str]:
        out: set[str] = set()
        for rule in self._rules:
            if rule.node.match(node_id):
                out.update(k for k in args if rule.arg.match(k))
        return frozenset(out) if out else _NONE


_NONE: frozenset[str] = frozenset()


def _compile(rule: str) -> _Rule:
    node, _, arg = rule.rpartition("/")
    return _Rule(re.compile(translate(node)), re.compile(translate(arg)))


def masked(value: Any) -> Any:
    """The marker in place of ``value``; a mapping keeps its keys (which entries there are)."""
    if isinstance(value, Mapping):
        return {str(k): MASK for k in value}
    return MASK


def mask_wire(wire: Mapping[str, Any]) -> dict[str, Any]:
    """The plan JSON without sensitive values (attribute values and node args masked).

    The rules are the plan's own (``execution.sensitive``); the input is not changed."""
    rules = SensitiveRules.of_execution(_mapping(wire.get("execution")))
    out = dict(wire)
    nodes = []
    for node in wire.get("nodes", ()):
        secret = rules.fields(str(node.get("id")), node.get("args") or {})
        if secret:
            args = {k: masked(v) if k in secret else v for k, v in node["args"].items()}
            node = {**node, "args": args}
        nodes.append(node)
    out["nodes"] = nodes
    diff = _mapping(wire.get("diff"))
    if diff is not None:
        out["diff"] = {k: _mask_changes(v) if k != "unchanged" else v for k, v in diff.items()}
    return out


def is_masked(wire: Mapping[str, Any]) -> bool:
    """Whether ``wire`` holds sensitive values, all masked (what :func:`mask_wire` writes)."""
    rules = SensitiveRules.of_execution(_mapping(wire.get("execution")))
    nodes = wire.get("nodes", ())
    if not any(rules.fields(str(n.get("id")), n.get("args") or {}) for n in nodes):
        return False
    return mask_wire(wire) == wire


def _mask_changes(changes: Sequence[Any]) -> list[Any]:
    out = []
    for change in changes:
        attrs = change.get("attributes") or ()
        for a in attrs:  # a loop, not any(): ~120,000 changes on large plans
            if a.get("sensitive"):
                change = {**change, "attributes": [_mask_attr(a) for a in attrs]}
                break
        out.append(change)
    return out


def _mask_attr(attr: Mapping[str, Any]) -> dict[str, Any]:
    if not attr.get("sensitive"):
        return dict(attr)
    return {k: masked(v) if k in ("before", "after") else v for k, v in attr.items()}


def _mapping(value: object) -> Mapping[str, Any] | None:
    return value if isinstance(value, Mapping) else None


def secret_values(nodes: Iterable[Any], rules: SensitiveRules) -> frozenset[str]:
    """Every string (of :data:`MIN_SCRUB_CHARS`+ characters) held by a sensitive arg."""
    out: set[str] = set()
    for node in nodes:
        for k in rules.fields(node.id, node.args):
            out.update(s for s in _strings(node.args[k]) if len(s) >= MIN_SCRUB_CHARS)
    return frozenset(out)


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, Mapping):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list | tuple):
        for v in value:
            yield from _strings(v)
    elif value is not None and not isinstance(value, bool):
        yield str(value)


def scrubber(secrets: Iterable[str]) -> Callable[[str], str]:
    """A function replacing each of ``secrets``, in every encoded form, by :data:`MASK`
    (longest first)."""
    return _secrets.scrubber(secrets)


def plan_scrubber(plan: Any) -> Callable[[str], str] | None:
    """The scrubber of an :class:`~averos_ci.plan.model.ExecutionPlan`'s secret values and of
    the secrets the process already knows (the token, the state key), or None when there are
    none (nothing to scan for). The plan's values join the process's known secrets, so the
    adapter's helper processes' stderr logs are scrubbed of them too."""
    secrets = secret_values(plan.nodes, SensitiveRules.of_execution(plan.execution))
    _secrets.register(*secrets)
    everything = secrets | _secrets.known()
    return scrubber(everything) if everything else None
