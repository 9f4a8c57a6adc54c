"""PEP 562 re-exports: a package's names, imported from their homes on first use."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, MutableMapping
from typing import Any


def lazy_exports(
    package: str, homes: Mapping[str, str], namespace: MutableMapping[str, Any], exported: list[str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The package's ``__getattr__`` and ``__dir__``: ``homes`` maps each name to the module it
    comes from; a name, once imported, is kept in ``namespace`` (the package's globals)."""

    def getattr_(name: str) -> Any:
        if name not in homes:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(homes[name]), name)
        namespace[name] = value
        return value

    def dir_() -> list[str]:
        return sorted({*namespace, *exported})

    return getattr_, dir_
