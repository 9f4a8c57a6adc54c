"""Located validation findings and their three output formats."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from enum import StrEnum
from typing import NamedTuple

from averos_ci._actions import command
from averos_ci.errors import InputError


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"


class Issue(NamedTuple):  # not a dataclass: `validate` does not import dataclasses (inspect)
    severity: Severity
    code: str
    message: str
    file: str
    line: int
    column: int
    pointer: str
    hint: str | None = None

    @property
    def is_error(self) -> bool:
        return self.severity is Severity.ERROR

    def to_dict(self) -> dict[str, object]:
        return {
            "severity": self.severity.value,
            "code": self.code,
            "message": self.message,
            "file": self.file,
            "line": self.line,
            "column": self.column,
            "pointer": self.pointer,
            "hint": self.hint,
        }


def sort_issues(issues: Iterable[Issue]) -> list[Issue]:
    return sorted(issues, key=lambda i: (i.file, i.line, i.column, i.code, i.message))


def format_text(issues: Sequence[Issue]) -> str:
    lines = []
    for i in issues:
        lines.append(f"{i.file}:{i.line}:{i.column}: {i.severity.value} {i.code} {i.message}")
        if i.hint:
            lines.append(f"  hint: {i.hint}")
    return "\n".join(lines)


def format_json(issues: Sequence[Issue], *, files: Sequence[str]) -> str:
    errors = sum(1 for i in issues if i.is_error)
    doc = {
        "formatVersion": 1,
        "valid": errors == 0,
        "files": list(files),
        "errors": errors,
        "warnings": len(issues) - errors,
        "issues": [i.to_dict() for i in issues],
    }
    return json.dumps(doc, indent=2, ensure_ascii=False)


def _escape_data(value: str) -> str:
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(value: str) -> str:
    return _escape_data(value).replace(":", "%3A").replace(",", "%2C")


def format_github(issues: Sequence[Issue]) -> str:
    """GitHub workflow commands: ``::error file=…,line=…,col=…,title=CODE::message``."""
    out = []
    for i in issues:
        props = ",".join(
            f"{k}={_escape_property(str(v))}"
            for k, v in (("file", i.file), ("line", i.line), ("col", i.column), ("title", i.code))
        )
        msg = i.message + (f" (hint: {i.hint})" if i.hint else "")
        out.append(f"::{i.severity.value} {props}::{_escape_data(msg)}")
    return command("\n".join(out)) if out else ""  # one frame: every line is escaped


class ManifestInvalid(InputError):
    """The manifest has at least one error-severity finding (exit 2)."""

    def __init__(self, issues: Sequence[Issue]) -> None:
        errors = [i for i in issues if i.is_error]
        first = errors[0] if errors else None
        super().__init__(
            f"manifest is invalid ({len(errors)} error(s))",
            path=first.file if first else None,
            line=first.line if first else None,
            column=first.column if first else None,
        )
        self.issues = list(issues)

    def __str__(self) -> str:
        return format_text([i for i in self.issues if i.is_error]) + (
            f"\n{len([i for i in self.issues if i.is_error])} error(s): manifest is invalid"
        )
