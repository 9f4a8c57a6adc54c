"""Collects findings for one document, locating each by JSON pointer."""

from __future__ import annotations

from collections.abc import Sequence

from averos_ci.manifest.issues import Issue, Severity
from averos_ci.source import Document, Pointer, pointer_str


class Reporter:
    def __init__(self, doc: Document, base: Pointer = ()) -> None:
        self.doc = doc
        self.base = base
        self.issues: list[Issue] = []

    def add(
        self,
        severity: Severity,
        code: str,
        message: str,
        pointer: Sequence[str | int],
        *,
        hint: str | None = None,
        key: bool = False,
    ) -> None:
        full = (*self.base, *pointer)
        line, col = self.doc.locate(full, key=key)
        self.issues.append(
            Issue(severity, code, message, str(self.doc.path), line, col, pointer_str(full), hint)
        )

    def error(
        self,
        code: str,
        message: str,
        pointer: Sequence[str | int],
        *,
        hint: str | None = None,
        key: bool = False,
    ) -> None:
        self.add(Severity.ERROR, code, message, pointer, hint=hint, key=key)

    def warning(
        self,
        code: str,
        message: str,
        pointer: Sequence[str | int],
        *,
        hint: str | None = None,
        key: bool = False,
    ) -> None:
        self.add(Severity.WARNING, code, message, pointer, hint=hint, key=key)

    @property
    def has_errors(self) -> bool:
        return any(i.is_error for i in self.issues)
