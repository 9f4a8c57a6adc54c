"""The shape of a manifest checked in plain Python: the fast path of validation.

The pydantic models of :mod:`averos_ci.manifest.schema` say what a manifest looks like and
word every shape error. Building them costs more than validating a manifest (importing
pydantic and building ~15 models: ~80 ms, the pre-commit hook's whole budget), so
:func:`plain_application` checks the same shape with the table :data:`FIELDS` first. It only
ever says "valid, and here are the values", or "not sure": then the caller asks pydantic,
which reports the errors. It accepts nothing pydantic refuses and yields the values pydantic
would (a test compares both on generated manifests; another keeps the table equal to the
models).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

# Field kinds (pydantic's strict types: a bool is no int, an int no str).
STR = "str"  # StrictStr, required
OPT_STR = "str?"  # StrictStr | None = None
OPT_BOOL = "bool?"  # StrictBool | None = None
OPT_INT = "int?"  # StrictInt | None = None
OPT_PORT = "port?"  # StrictInt (1..65535) | None = None
OPT_SCALAR = "scalar?"  # StrictStr | StrictInt | StrictBool | float | None = None
OPT_STRS = "[str]?"  # list[StrictStr] | None = None
OBJECTS = "[dict]"  # list[dict[str, Any]] = []
# "[Model]": list[Model] = [];  "Model?": Model | None = None

# Every model of schema.py, its fields in declaration order.
FIELDS: dict[str, dict[str, str]] = {
    "SimpleMember": {
        "memberNature": STR,
        "ename": STR,
        "mname": STR,
        "memberType": STR,
        "listOfEnumValues": OPT_STR,
        "memberTag": OPT_STR,
        "enableTag": OPT_BOOL,
        "renamedFrom": OPT_STR,
    },
    "CompositeMember": {
        "memberNature": STR,
        "ename": STR,
        "fename": STR,
        "memberName": STR,
        "fieldRelationType": STR,
        "deleteStrategy": OPT_STR,
        "memberUpdateStrategy": OPT_STR,
        "renamedFrom": OPT_STR,
    },
    "Entity": {"name": STR, "sname": OPT_STR, "members": OBJECTS, "renamedFrom": OPT_STR},
    "Service": {"name": STR, "ename": OPT_STR},
    "ServiceConfiguration": {
        "name": STR,
        "id": STR,
        "type": OPT_STR,
        "apiHost": OPT_STR,
        "apiPort": OPT_PORT,
        "apiProtocol": OPT_STR,
        "apiEndPoint": OPT_STR,
        "apiHTTPQueryBuilder": OPT_STR,
    },
    "UseCase": {"name": STR, "ename": STR, "useCaseType": STR},
    "BlankPage": {
        "name": STR,
        "updateRouteMenu": OPT_BOOL,
        "targetMenu": OPT_STR,
        "targetSpace": OPT_STR,
    },
    "MappingEntry": {"fieldKey": STR, "mapTo": STR},
    "FieldMapping": {"name": STR, "ename": STR, "mapping": "[MappingEntry]"},
    "AuthConfigEntry": {"key": STR, "value": OPT_SCALAR},
    "AuthenticationProvider": {
        "name": STR,
        "providerType": STR,
        "config": "[AuthConfigEntry]",
    },
    "HttpAuthConfig": {
        "name": OPT_STR,
        "tokenHeader": OPT_STR,
        "tokenPrefix": OPT_STR,
        "publicRoutes": OPT_STRS,
        "unauthorizedRedirect": OPT_STR,
        "withCredentials": OPT_BOOL,
        "maxRefreshRetries": OPT_INT,
    },
    "TranslationEntry": {"localeID": STR, "localeValue": STR, "targetEntity": OPT_STR},
    "Language": {"languageCode": STR, "translationEntries": "[TranslationEntry]"},
    "Application": {
        "applicationName": STR,
        "description": OPT_STR,
        "defaultLanguageCode": OPT_STR,
        "enableAuthentication": OPT_BOOL,
        "enableExternalEntityMapping": OPT_BOOL,
        "defaultAuthenticationProvider": OPT_STR,
        "httpAuthConfig": "HttpAuthConfig?",
        "entities": "[Entity]",
        "services": "[Service]",
        "serviceConfigurations": "[ServiceConfiguration]",
        "useCases": "[UseCase]",
        "blankPages": "[BlankPage]",
        "fieldMappings": "[FieldMapping]",
        "authentication": "[AuthenticationProvider]",
        "languages": "[Language]",
    },
}
# Models whose unknown keys the fast path leaves to pydantic (normalize dumps them).
_NO_EXTRA = frozenset({"HttpAuthConfig"})


def known_keys(model: str) -> frozenset[str]:
    return frozenset(FIELDS[model])


class Shape:
    """A shape-checked object: the attributes of the pydantic model it stands for, defaults
    filled in, unknown keys left out (they are warnings, reported from the raw data)."""

    def __init__(self, values: dict[str, Any]) -> None:
        self.__dict__.update(values)

    if TYPE_CHECKING:

        def __getattr__(self, name: str) -> Any: ...


class _NotSure(Exception):
    pass


_MISSING = object()


def _exact(*types: type, required: bool = False) -> Callable[[Any], Any]:
    def check(value: Any) -> Any:
        if type(value) in types:
            return value
        if value is None and not required:
            return None
        if value is _MISSING and not required:
            return None
        raise _NotSure

    return check


def _port(value: Any) -> Any:
    if value is None or value is _MISSING:
        return None
    if type(value) is int and 1 <= value <= 65535:
        return value
    raise _NotSure


def _strs(value: Any) -> Any:
    if value is None or value is _MISSING:
        return None
    if type(value) is not list or any(type(v) is not str for v in value):
        raise _NotSure
    return list(value)


def _dicts(value: Any) -> Any:
    if value is _MISSING:
        return []
    if type(value) is not list or any(type(v) is not dict for v in value):
        raise _NotSure
    return list(value)


def _objects(model: str) -> Callable[[Any], Any]:
    def check(value: Any) -> Any:
        if value is _MISSING:
            return []
        if type(value) is not list:
            raise _NotSure
        return [_object(model, v) for v in value]

    return check


def _optional_object(model: str) -> Callable[[Any], Any]:
    def check(value: Any) -> Any:
        return None if value is None or value is _MISSING else _object(model, value)

    return check


def _kind(kind: str) -> Callable[[Any], Any]:
    """The check of a field of ``kind``: the value pydantic holds, or raises ``_NotSure``."""
    simple = {
        STR: _exact(str, required=True),
        OPT_STR: _exact(str),
        OPT_BOOL: _exact(bool),
        OPT_INT: _exact(int),
        OPT_SCALAR: _exact(str, int, bool, float),
        OPT_PORT: _port,
        OPT_STRS: _strs,
        OBJECTS: _dicts,
    }
    if kind in simple:
        return simple[kind]
    if kind.startswith("["):
        return _objects(kind[1:-1])
    return _optional_object(kind.rstrip("?"))


_CHECKS: dict[str, tuple[tuple[str, Callable[[Any], Any]], ...]] = {
    model: tuple((name, _kind(kind)) for name, kind in fields.items())
    for model, fields in FIELDS.items()
}


def _object(model: str, data: Any) -> Shape:
    if type(data) is not dict or (model in _NO_EXTRA and not data.keys() <= FIELDS[model].keys()):
        raise _NotSure
    get = data.get
    return Shape({name: check(get(name, _MISSING)) for name, check in _CHECKS[model]})


def plain_application(data: Any) -> tuple[Shape, dict[tuple[int, int], Shape]] | None:
    """The application and its members (by (entity, member) index) as pydantic would hold
    them, or ``None`` when the data may not be valid: pydantic decides and words the errors."""
    try:
        app = _object("Application", data)
        members: dict[tuple[int, int], Shape] = {}
        for ei, entity in enumerate(app.entities):
            for mi, raw in enumerate(entity.members):
                nature = raw.get("memberNature")
                if nature == "simple":
                    members[(ei, mi)] = _object("SimpleMember", raw)
                elif nature == "composite":
                    members[(ei, mi)] = _object("CompositeMember", raw)
                else:
                    return None
    except _NotSure:
        return None
    return app, members
