"""The ``validate`` tool: the findings ``averos-ci validate`` prints, for a file or inline text.
Bad input (syntax, size, encoding) is a finding, as on the command line, not a tool error."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from averos_ci.errors import InputError
from averos_ci.manifest.issues import Issue, Severity
from averos_ci.mcp.workspace import Workspace


def validate(
    ws: Workspace,
    *,
    path: str | None = None,
    inline: str | dict[str, Any] | None = None,
    project: str | None = None,
) -> dict[str, Any]:
    from averos_ci.manifest.validate import ValidationResult, validate_document, validate_file
    from averos_ci.source import SourceError, parse_document

    if inline is not None and path is not None:
        raise InputError("give either path or manifest, not both")
    result: ValidationResult
    if inline is not None:
        text = inline if isinstance(inline, str) else json.dumps(inline, indent=2)
        shown = "<manifest>.json" if text.lstrip().startswith("{") else "<manifest>.yaml"
        raw = text.encode("utf-8")
        try:
            if len(raw) > ws.max_bytes:
                raise SourceError(
                    "SYN-02", f"manifest is over the {ws.max_bytes}-byte limit", path=shown
                )
            doc = parse_document(raw, path=ws.root / shown, what="manifest")
            result = validate_document(doc)
        except SourceError as exc:
            issue = Issue(
                Severity.ERROR,
                exc.code,
                exc.message,
                shown,
                exc.line or 1,
                exc.column or 1,
                "",
                exc.hint,
            )
            result = ValidationResult(Path(shown), [issue], None)
    else:
        target = ws.inside(path or ws.run_config(project).manifest_path, what="manifest")
        result = validate_file(target, max_bytes=ws.max_bytes)
        shown = ws.relative(target)
    findings = [{**i.to_dict(), "file": shorten(ws, i.file)} for i in result.issues]
    errors = sum(1 for i in result.issues if i.is_error)
    return {
        "valid": result.valid,
        "file": shown,
        "errors": errors,
        "warnings": len(findings) - errors,
        "findings": findings,
    }


def shorten(ws: Workspace, file: str | None) -> str | None:
    """A path the agent can use: repository-relative when inside the repository."""
    if file is None:
        return None
    try:
        return Path(file).resolve().relative_to(ws.root).as_posix()
    except (ValueError, OSError):
        return file
