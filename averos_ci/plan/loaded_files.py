"""The files an execution loads, by content: the ``loadedFiles`` part of a plan's identity
(:mod:`averos_ci.execute.adapters.identity`), so that a change of the code that runs is a new
plan. An adapter names its own files (its ``loaded_files`` hook); the listeners
(``module:attribute``) are found here: the module's file and its packages' ``__init__.py``,
found on ``sys.path`` the way an import finds them, but never imported (a plan runs on
untrusted heads) -- when they live in the config's folder, the reviewed repository.

Paths are relative to the config's folder; each file is read through a ``Reader``, so the
base branch's identity hashes the base commit's files (:mod:`averos_ci.github.base_execution`).
"""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Callable, Iterable, Iterator
from importlib.machinery import ModuleSpec
from pathlib import Path
from typing import Any

Reader = Callable[[str], bytes | None]  # a config-relative posix path -> its bytes, or None


def disk_reader(base: Path) -> Reader:
    """Files under ``base`` (never outside it, symbolic links resolved first)."""
    root = base.resolve()

    def read(rel: str) -> bytes | None:
        path = (root / rel).resolve()
        if not path.is_relative_to(root) or not path.is_file():
            return None
        try:
            return path.read_bytes()
        except OSError:
            return None

    return read


def listener_files(specs: Iterable[str], *, root: Path, read: Reader) -> dict[str, str]:
    """The files of the listener modules found under ``root`` (the config's folder)."""
    out: dict[str, str] = {}
    base = root.resolve()
    for spec in specs:
        for origin in _origins(spec.partition(":")[0]):
            path = origin.resolve()
            if not path.is_relative_to(base):
                continue  # installed elsewhere: not part of what a pull request changes
            rel = path.relative_to(base).as_posix()
            data = read(rel)
            out[rel] = digest(data) if data is not None else "absent"
    return dict(sorted(out.items()))


def digest(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def _origins(name: str) -> Iterator[Path]:
    """The files an import of module ``name`` executes (packages' ``__init__`` first),
    located with the path finders' hooks, without importing anything."""
    search: list[str] = list(sys.path)
    for i in range(len(name.split("."))):
        spec, portions = _find(".".join(name.split(".")[: i + 1]), search)
        if spec is None:  # a namespace package (nothing runs) or nothing at all
            if not portions:
                return
            search = portions
            continue
        if spec.has_location and spec.origin:
            yield Path(spec.origin)
        if spec.submodule_search_locations is None:
            return
        search = list(spec.submodule_search_locations)


def _find(fullname: str, search: list[str]) -> tuple[ModuleSpec | None, list[str]]:
    """The first module or regular package ``fullname`` in ``search``, else the folders of a
    namespace package (``importlib``'s own walk would need the parent imported)."""
    portions: list[str] = []
    for entry in search:
        finder = _finder(entry)
        try:
            spec = finder.find_spec(fullname) if finder is not None else None
        except (ImportError, ValueError, OSError):
            spec = None
        if spec is None:
            continue
        if spec.loader is not None:
            return spec, []
        portions += list(spec.submodule_search_locations or [])
    return None, portions


def _finder(entry: str) -> Any:
    if not isinstance(entry, str):
        return None
    cached = sys.path_importer_cache.get(entry)
    if cached is not None:
        return cached
    for hook in sys.path_hooks:
        try:
            return hook(entry)
        except ImportError:
            continue
    return None
