"""Layers 1-2: load an Averos manifest (JSON/YAML, flat or designer export) and validate it.

The names below are imported on first use (PEP 562): importing ``averos_ci.manifest.names``
or ``averos_ci.manifest.issues`` does not build the pydantic models of the validator.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from averos_ci._lazy import lazy_exports

if TYPE_CHECKING:
    from averos_ci.manifest.issues import (
        Issue,
        ManifestInvalid,
        Severity,
        format_github,
        format_json,
        format_text,
    )
    from averos_ci.manifest.validate import ValidationResult, load_manifest, validate_file

__all__ = [
    "Issue",
    "ManifestInvalid",
    "Severity",
    "ValidationResult",
    "format_github",
    "format_json",
    "format_text",
    "load_manifest",
    "validate_file",
]

_HOMES = {
    "Issue": "averos_ci.manifest.issues",
    "ManifestInvalid": "averos_ci.manifest.issues",
    "Severity": "averos_ci.manifest.issues",
    "format_github": "averos_ci.manifest.issues",
    "format_json": "averos_ci.manifest.issues",
    "format_text": "averos_ci.manifest.issues",
    "ValidationResult": "averos_ci.manifest.validate",
    "load_manifest": "averos_ci.manifest.validate",
    "validate_file": "averos_ci.manifest.validate",
}


__getattr__, __dir__ = lazy_exports(__name__, _HOMES, globals(), __all__)
