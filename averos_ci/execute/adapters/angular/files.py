"""What the idempotence guards read: the disk, or the driver's tree (which, in a dry run,
includes what earlier nodes of the run would have written); and where the app's sources are."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Protocol


class Files(Protocol):
    def read(self, relative: str) -> str | None: ...


class DiskFiles:
    def __init__(self, root: Path) -> None:
        self.root = root

    def read(self, relative: str) -> str | None:
        path = self.root / relative
        try:
            return path.read_text(encoding="utf-8") if path.is_file() else None
        except (OSError, UnicodeDecodeError):
            return None


def exists(files: Files, relative: str) -> bool:
    return files.read(relative) is not None


def source_root(files: Files) -> str:
    """``sourceRoot`` of the default project (what the schematics' buildDefaultPath uses)."""
    try:
        workspace = json.loads(files.read("angular.json") or "{}")
        projects = workspace.get("projects") or {}
        name = workspace.get("defaultProject") or next(iter(projects))
        return str(projects[name].get("sourceRoot") or "src")
    except (ValueError, StopIteration, KeyError, AttributeError):
        return "src"


def source_relative(root: Path, relative: str) -> str:
    """``<sourceRoot>/<relative>``, relative to the workspace root."""
    return f"{source_root(DiskFiles(root))}/{relative}"


def read_text(path: Path) -> str:
    """The file's text as stored: no newline translation (the schematics write CRLF files,
    and an edit must change only what it means to)."""
    return path.read_bytes().decode("utf-8")
