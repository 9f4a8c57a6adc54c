"""Generated trees: a snapshot of what a clean generation wrote, and the pristine store that
keeps them content-addressed next to the state (``<state folder>/pristine/``)::

    pristine/trees/<key>.json   {"formatVersion": 1, "key", "files": {path: sha256},
                                 "nodes": {node id: [paths it wrote]}}
    pristine/blobs/ab/<sha256>  the file contents

A tree's key is the hash of the manifest and the execution settings that generated it
(:func:`tree_key`). Dependencies and build output are never part of a tree.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from averos_ci._fs import atomic_write_bytes, atomic_write_text, is_safe_relpath
from averos_ci.plan.canonical import canonical_json

TREE_FORMAT_VERSION = 1
_DIGEST = re.compile(r"[0-9a-f]{64}")
# Installed dependencies, build output, caches and VCS data: never generated source.
EXCLUDED = frozenset({"node_modules", "dist", ".angular", ".git", "build", "coverage", ".cache"})


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def tree_key(manifest_hash: str, execution: Mapping[str, Any] | None) -> str:
    """What a clean generation depends on: the manifest and the execution settings."""
    doc = {"manifestHash": manifest_hash, "execution": dict(execution or {})}
    return sha256(canonical_json(doc).encode())


@dataclass(frozen=True)
class Tree:
    files: dict[str, bytes]  # path -> content
    nodes: dict[str, tuple[str, ...]]  # node id -> paths it wrote (the fingerprint's writers)

    def hashes(self) -> dict[str, str]:
        return {p: sha256(b) for p, b in sorted(self.files.items())}


EMPTY = Tree({}, {})


def snapshot(root: Path) -> dict[str, bytes]:
    """Every regular file under ``root`` (posix relative paths), outside :data:`EXCLUDED`."""
    out: dict[str, bytes] = {}
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in EXCLUDED)
        for name in names:
            path = Path(folder) / name
            if path.is_symlink() or not path.is_file():
                continue
            out[path.relative_to(root).as_posix()] = path.read_bytes()
    return dict(sorted(out.items()))


class PristineStore:
    def __init__(self, folder: Path, *, read_only: bool = False) -> None:
        self.folder = folder
        self.read_only = read_only  # a dry run reads the store but never writes it

    def _index(self, key: str) -> Path:
        return self.folder / "trees" / f"{key}.json"

    def _blob(self, digest: str) -> Path:
        return self.folder / "blobs" / digest[:2] / digest

    def save(self, key: str, tree: Tree) -> None:
        """Blobs first, the index last (atomically): a crash leaves no index without blobs."""
        if self.read_only:
            return
        hashes = tree.hashes()
        for path, digest in hashes.items():
            blob = self._blob(digest)
            if not blob.exists():
                atomic_write_bytes(blob, tree.files[path])
        doc = {
            "formatVersion": TREE_FORMAT_VERSION,
            "key": key,
            "files": hashes,
            "nodes": {n: list(p) for n, p in sorted(tree.nodes.items())},
        }
        atomic_write_text(self._index(key), json.dumps(doc, indent=1, sort_keys=True) + "\n")

    def load(self, key: str) -> Tree | None:
        """The tree, or ``None`` when absent, of another format, damaged or naming a path that
        is not a plain relative one (regenerate it). Loading does not make a tree trusted: a
        caller checks it against the applied state (``patching._base``)."""
        try:
            doc = json.loads(self._index(key).read_text("utf-8"))
            if doc.get("formatVersion") != TREE_FORMAT_VERSION:
                return None
            files: dict[str, bytes] = {}
            for path, digest in doc["files"].items():
                if not is_safe_relpath(path):  # a planted index: "../x", ".git/hooks/x" …
                    return None
                if not isinstance(digest, str) or not _DIGEST.fullmatch(digest):
                    return None
                data = self._blob(digest).read_bytes()
                if sha256(data) != digest:
                    return None
                files[path] = data
            nodes = {n: tuple(p) for n, p in doc.get("nodes", {}).items()}
            if not all(p in files for paths in nodes.values() for p in paths):
                return None
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return None
        return Tree(files, nodes)

    def prune(self, keep: Iterable[str]) -> None:
        """Drop the trees not in ``keep`` and the blobs no kept tree references."""
        if self.read_only:
            return
        keep = set(keep)
        referenced: set[str] = set()
        for index in sorted((self.folder / "trees").glob("*.json")):
            if index.stem not in keep:
                index.unlink(missing_ok=True)
                continue
            with contextlib.suppress(OSError, ValueError, AttributeError):
                referenced |= set(json.loads(index.read_text("utf-8"))["files"].values())
        for blob in sorted((self.folder / "blobs").glob("*/*")):
            if blob.name not in referenced:
                blob.unlink(missing_ok=True)


def pristine_folder(state_path: Path) -> Path:
    return state_path.parent / "pristine"
