"""Layer 2 pipeline: read -> shape (pydantic) -> unknown keys -> semantic rules -> normalize."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from averos_ci.manifest import shape
from averos_ci.manifest.issues import Issue, ManifestInvalid, Severity, sort_issues
from averos_ci.manifest.report import Reporter
from averos_ci.source import DEFAULT_MAX_BYTES, Document, Pointer, SourceError, load_document

if TYPE_CHECKING:
    from pydantic import BaseModel

# No dataclass, no pydantic on this module's import: ``averos-ci validate`` (the pre-commit
# hook) pays for neither when the manifest is valid (shape.py).


class ValidationResult(NamedTuple):
    path: Path
    issues: list[Issue]
    manifest: dict[str, Any] | None  # normalized manifest; None when there are errors

    @property
    def valid(self) -> bool:
        return not any(i.is_error for i in self.issues)


def validate_file(
    path: str | Path, *, max_bytes: int = DEFAULT_MAX_BYTES, normalized: bool = True
) -> ValidationResult:
    """Validate one manifest file. Never raises for bad input: everything is an Issue.
    ``normalized=False``: the findings only (``manifest`` stays ``None``), what ``validate``
    prints."""
    path = Path(path)
    try:
        doc = load_document(path, max_bytes=max_bytes, what="manifest")
    except SourceError as exc:
        issue = Issue(
            Severity.ERROR,
            exc.code,
            exc.message,
            str(path),
            exc.line or 1,
            exc.column or 1,
            "",
            exc.hint,
        )
        return ValidationResult(path, [issue], None)
    return validate_document(doc, normalized=normalized)


def load_manifest(
    path: str | Path, *, max_bytes: int = DEFAULT_MAX_BYTES
) -> tuple[dict[str, Any], list[Issue]]:
    """Normalized manifest and its warnings; raises ManifestInvalid (exit 2) on errors."""
    result = validate_file(path, max_bytes=max_bytes)
    if result.manifest is None:
        raise ManifestInvalid(result.issues)
    return result.manifest, result.issues


def validate_document(doc: Document, *, normalized: bool = True) -> ValidationResult:
    from averos_ci.manifest.rules import check_semantics

    data = doc.data
    base: Pointer = ()
    report = Reporter(doc)
    project = data.get("project")
    if isinstance(project, dict) and "averosApplication" in project:
        base = ("project", "averosApplication")
        data = data["project"]["averosApplication"]
        if not isinstance(data, dict):
            report.error("SYN-10", "project.averosApplication must be an object", base)
            return _result(doc, report, None)
    elif "project" in data and "applicationName" not in data:
        report.error(
            "SYN-13",
            "designer export has no project.averosApplication object",
            ("project",),
            hint="export the project again from the Averos designer",
        )
        return _result(doc, report, None)
    report.base = base
    # the plain check (no pydantic) when it is sure the shape is valid, else pydantic's
    checked = shape.plain_application(data)
    app: Any  # schema.Application or a shape.Shape with the same attributes
    app, members = checked if checked is not None else _pydantic_shape(data, report)
    if app is None or report.has_errors:
        return _result(doc, report, None)
    _unknown_keys(data, report)
    check_semantics(app, members, report)
    if report.has_errors or not normalized:
        return _result(doc, report, None)
    from averos_ci.manifest.normalize import normalize

    manifest = normalize(app, members)
    return _result(doc, report, manifest)


def _pydantic_shape(data: Any, report: Reporter) -> tuple[Any, dict[tuple[int, int], Any]]:
    """The application and its members as pydantic models, shape errors reported."""
    from averos_ci.manifest import schema

    app = _shape(schema.Application, data, (), report)
    members: dict[tuple[int, int], Any] = {}
    if app is not None:
        for ei, entity in enumerate(app.entities):
            for mi, raw in enumerate(entity.members):
                member = _member(raw, ("entities", ei, "members", mi), report)
                if member is not None:
                    members[(ei, mi)] = member
    return app, members


def _result(doc: Document, report: Reporter, manifest: dict[str, Any] | None) -> ValidationResult:
    return ValidationResult(doc.path, sort_issues(report.issues), manifest)


_MISSING_HINTS = {"applicationName": "every manifest names its application"}


def _shape(model: type[BaseModel], data: Any, at: Pointer, report: Reporter) -> Any:
    from pydantic import ValidationError

    from averos_ci._validation import problems

    try:
        return model.model_validate(data)
    except ValidationError as exc:
        seen: set[tuple[str | int, ...]] = set()
        for problem in problems(exc):
            if problem.kind == "missing":
                field = str(problem.loc[-1])
                report.error(
                    "SYN-11",
                    f"required key {field!r} is missing",
                    (*at, *problem.loc[:-1]),
                    hint=_MISSING_HINTS.get(field, f"add {field!r}"),
                )
                continue
            # Union types add the branch name to the location (…/value/str): keep the part
            # of the location that exists in the document, and one finding per place.
            loc = _existing(data, problem.loc)
            if loc in seen:
                continue
            seen.add(loc)
            got = type(problem.input).__name__
            where = ".".join(map(str, loc)) or "manifest"
            report.error("SYN-10", f"{where}: {problem.msg} (got {got})", (*at, *loc))
        return None


def _existing(data: Any, loc: tuple[str | int, ...]) -> tuple[str | int, ...]:
    """The longest prefix of ``loc`` that is a path in ``data``."""
    node, out = data, []
    for part in loc:
        if not isinstance(node, dict | list):
            break
        try:
            node = node[part]  # type: ignore[index]
        except (KeyError, IndexError, TypeError):
            break
        out.append(part)
    return tuple(out)


def _member(raw: Any, at: Pointer, report: Reporter) -> BaseModel | None:
    from averos_ci.manifest import schema

    if not isinstance(raw, dict):
        report.error("SYN-10", f"a member must be an object (got {type(raw).__name__})", at)
        return None
    nature = raw.get("memberNature")
    if nature == "simple":
        model: type[BaseModel] = schema.SimpleMember
    elif nature == "composite":
        model = schema.CompositeMember
    else:
        report.error(
            "CON-08",
            f"memberNature must be 'simple' or 'composite', not {nature!r}",
            (*at, "memberNature") if "memberNature" in raw else at,
        )
        return None
    result: BaseModel | None = _shape(model, raw, at, report)
    return result


# Which known-key set applies below which list key.
_CHILDREN: dict[str, str] = {
    "entities": "Entity",
    "services": "Service",
    "serviceConfigurations": "ServiceConfiguration",
    "useCases": "UseCase",
    "blankPages": "BlankPage",
    "fieldMappings": "FieldMapping",
    "mapping": "MappingEntry",
    "authentication": "AuthenticationProvider",
    "config": "AuthConfigEntry",
    "languages": "Language",
    "translationEntries": "TranslationEntry",
}


def _unknown_keys(data: dict[str, Any], report: Reporter) -> None:
    _check_keys(data, "Application", (), report)


def _check_keys(obj: dict[str, Any], model: str, at: Pointer, report: Reporter) -> None:
    # A module function, not a closure: a recursive closure is a reference cycle, and through
    # ``report`` it kept the whole parsed document alive until the next cyclic collection.
    known = shape.FIELDS[model]
    for key, value in obj.items():
        if key not in known:
            report.warning(
                "SYN-12",
                f"unknown key {key!r} is ignored",
                (*at, key),
                key=True,
                hint="check the spelling against the Averos manifest format",
            )
            continue
        if key == "httpAuthConfig" and isinstance(value, dict):
            _check_keys(value, "HttpAuthConfig", (*at, key), report)
        elif key == "members" and isinstance(value, list):
            for i, m in enumerate(value):
                nature = m.get("memberNature")
                sub = "SimpleMember" if nature == "simple" else "CompositeMember"
                if not _nothing_below(m, sub):
                    _check_keys(m, sub, (*at, key, i), report)
        elif key in _CHILDREN and isinstance(value, list):
            sub = _CHILDREN[key]
            for i, item in enumerate(value):
                if isinstance(item, dict) and not _nothing_below(item, sub):
                    _check_keys(item, sub, (*at, key, i), report)


def _nothing_below(obj: dict[str, Any], model: str) -> bool:
    """No unknown key at or below ``obj``, sure without walking it (100,000 members)."""
    return model in _LEAVES and obj.keys() <= shape.FIELDS[model].keys()


# Models with no object below them: when their keys are all known, there is nothing to check.
_LEAVES = frozenset(
    model
    for model, fields in shape.FIELDS.items()
    if not any(f in _CHILDREN or f in ("members", "httpAuthConfig") for f in fields)
)


def validate_paths(
    paths: list[Path],
    *,
    output_format: str = "text",
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> int:
    """Validate files, print the findings in ``output_format``; return the exit code (0 / 2).
    Which files when none is named (the config's ``manifestPath``) is the front's choice."""
    import sys

    from averos_ci.manifest.issues import format_github, format_json, format_text

    issues: list[Issue] = []
    for path in paths:
        issues.extend(validate_file(path, max_bytes=max_bytes, normalized=False).issues)
    errors = sum(1 for i in issues if i.is_error)
    if output_format == "json":
        print(format_json(issues, files=[str(p) for p in paths]))
    elif output_format == "github":
        if issues:
            print(format_github(issues))
    else:
        if issues:
            print(format_text(issues))
        verdict = "invalid" if errors else "valid"
        print(
            f"{len(paths)} file(s) {verdict}: {errors} error(s), {len(issues) - errors} warning(s)",
            file=sys.stderr,
        )
    return 2 if errors else 0
