"""Layers 1-2: load an Averos manifest (JSON/YAML, flat or designer export) and validate it."""

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
