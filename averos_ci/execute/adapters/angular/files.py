"""What the idempotence guards read: the disk, or the driver's tree (which, in a dry run,
includes what earlier nodes of the run would have written)."""

from __future__ import annotations

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
