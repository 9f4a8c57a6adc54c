"""Requests to and responses from a fake GitHub API, checked against GitHub's own OpenAPI
description (``@octokit/openapi``, ``generated/api.github.com.json``).

The package is installed by ``.ci/run`` from ``tests/onboard/openapi/package-lock.json`` into
``$AVEROS_CI_CACHE_DIR/openapi-check/<lockfile sha256[:12]>``; without it a check is skipped
locally and fails under CI (``tests.conftest.unavailable``). Any fake can use it::

    spec = load_spec()                      # once per session (13 MB of JSON)
    spec.check(method, path, query, status, body)   # AssertionError with the reason

The description is OpenAPI 3.0: ``nullable: true`` is turned into JSON Schema's ``null`` type
once at load time; ``$ref``\\ s resolve inside the document (``referencing``).
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jsonschema import Draft7Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT7

from averos_ci.execute.adapters.angular.options import cache_root
from tests.conftest import unavailable

LOCK = Path(__file__).parent / "onboard" / "openapi" / "package-lock.json"
SPEC_IN_PACKAGE = Path("node_modules/@octokit/openapi/generated/api.github.com.json")
URI = "urn:github-openapi"
# GitHub answers 403/404 on endpoints whose description lists only 200 (no admin rights,
# no access); such a body must still be GitHub's error object.
UNDOCUMENTED_ERRORS = (401, 403, 404)


def spec_path() -> Path:
    """Resolve early (before a test installs its private $HOME): the cache folder .ci/run fills."""
    lock = hashlib.sha256(LOCK.read_bytes()).hexdigest()[:12]
    return cache_root(None) / "openapi-check" / lock / SPEC_IN_PACKAGE


@dataclass(frozen=True)
class Operation:
    method: str
    template: str
    data: dict[str, Any]


class OpenAPISpec:
    def __init__(self, document: dict[str, Any]) -> None:
        _nullable_to_null(document)
        self.document = document
        resource = Resource.from_contents(document, default_specification=DRAFT7)
        self.registry: Registry[Any] = Registry().with_resource(URI, resource)
        self._routes = sorted(
            (
                (template.count("{"), re.compile(_pattern(template)), template)
                for template in document["paths"]
            ),
            key=lambda r: (r[0], r[2]),
        )

    def operation(self, method: str, path: str) -> Operation:
        for _, pattern, template in self._routes:
            if pattern.fullmatch(path):
                op = self.document["paths"][template].get(method.lower())
                if op is not None:
                    return Operation(method.upper(), template, op)
        raise AssertionError(f"{method} {path}: no such operation in GitHub's REST description")

    def check(
        self, method: str, path: str, query: dict[str, str], status: int, body: Any
    ) -> Operation:
        """Check one exchange; returns the operation. Raises AssertionError on any mismatch."""
        op = self.operation(method, path)
        declared = {p.get("name") for p in self._parameters(op) if p.get("in") == "query"}
        unknown = set(query) - declared
        assert not unknown, f"{method} {op.template}: undocumented query {sorted(unknown)}"
        schema = self.response_schema(op, status)
        if schema is None:
            return op
        errors = sorted(
            Draft7Validator(schema, registry=self.registry).iter_errors(body),
            key=lambda e: list(e.absolute_path),
        )
        assert not errors, f"{method} {op.template} -> {status}: " + "; ".join(
            f"{'/'.join(map(str, e.absolute_path))}: {e.message[:200]}" for e in errors[:5]
        )
        return op

    def check_request(self, method: str, path: str, query: dict[str, str], body: Any) -> Operation:
        """Check what a client sent: a documented operation, documented query parameters and,
        for a JSON body, its ``requestBody`` schema. Raises AssertionError with the reason."""
        op = self.operation(method, path)
        declared = {p.get("name") for p in self._parameters(op) if p.get("in") == "query"}
        unknown = set(query) - declared
        assert not unknown, f"{method} {op.template}: undocumented query {sorted(unknown)}"
        request = self._deref(op.data.get("requestBody", {}))
        content = request.get("content", {}).get("application/json")
        if content is None:
            assert body is None, f"{method} {op.template}: a body where none is documented"
            return op
        assert body is not None or not request.get("required"), f"{op.template}: body required"
        errors = list(
            Draft7Validator(_rebase(content["schema"]), registry=self.registry).iter_errors(body)
        )
        assert not errors, f"{method} {op.template} request: " + "; ".join(
            e.message[:200] for e in errors[:5]
        )
        return op

    def response_schema(self, op: Operation, status: int) -> dict[str, Any] | None:
        responses = op.data.get("responses", {})
        response = responses.get(str(status))
        if response is None:
            assert status in UNDOCUMENTED_ERRORS, f"{op.method} {op.template}: HTTP {status}?"
            # basic-error requires nothing; GitHub's error bodies always carry a message
            return {
                "allOf": [{"$ref": f"{URI}#/components/schemas/basic-error"}],
                "required": ["message"],
            }
        response = self._deref(response)
        content = response.get("content", {}).get("application/json")
        if content is None:
            return None  # e.g. 204: no body to check
        return _rebase(content["schema"])

    def _parameters(self, op: Operation) -> list[dict[str, Any]]:
        shared = self.document["paths"][op.template].get("parameters", [])
        return [self._deref(p) for p in [*shared, *op.data.get("parameters", [])]]

    def _deref(self, node: dict[str, Any]) -> dict[str, Any]:
        while "$ref" in node:
            target: Any = self.document
            for part in node["$ref"].removeprefix("#/").split("/"):
                target = target[part]
            node = target
        return node


@functools.cache
def _load(path: Path) -> OpenAPISpec:
    return OpenAPISpec(json.loads(path.read_text(encoding="utf-8")))


def load_spec(path: Path | None = None) -> OpenAPISpec:
    path = path or spec_path()
    if not path.is_file():
        unavailable(f"GitHub's OpenAPI description is missing at {path}: run .ci/run")
    return _load(path)


def _pattern(template: str) -> str:
    return re.sub(r"\\\{[^/]+?\\\}", "[^/]+", re.escape(template))


def _rebase(schema: Any) -> Any:
    """Local ``#/…`` refs of a sub-schema point into the registered document."""
    if isinstance(schema, dict):
        return {
            k: (URI + v if k == "$ref" and v.startswith("#") else _rebase(v))
            for k, v in schema.items()
        }
    if isinstance(schema, list):
        return [_rebase(v) for v in schema]
    return schema


def _nullable_to_null(node: Any) -> None:
    """OpenAPI 3.0 ``nullable: true`` → JSON Schema: the value may also be ``null``."""
    if isinstance(node, list):
        for item in node:
            _nullable_to_null(item)
        return
    if not isinstance(node, dict):
        return
    for value in node.values():
        _nullable_to_null(value)
    if node.pop("nullable", False) is True:
        inner = dict(node)
        node.clear()
        node["anyOf"] = [inner, {"type": "null"}]
