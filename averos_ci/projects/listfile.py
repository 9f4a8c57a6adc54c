"""``averos-ci.yaml`` at the repository root: an explicit list of projects.

Without it every ``averos.config.json`` outside ignored and generated paths is a project.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr, ValidationError
from pydantic.alias_generators import to_camel

from averos_ci.errors import ConfigError
from averos_ci.source import Document, SourceError, load_document

LIST_FILE_NAME = "averos-ci.yaml"
LIST_FORMAT_VERSION = 1
_MAX_BYTES = 1024 * 1024


class _Model(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid")


class ProjectEntry(_Model):
    name: StrictStr | None = Field(
        default=None,
        description="The project's name (default: `github.project` of its config, else the "
        "config's directory, `default` at the root); must equal `github.project` if both are "
        "set.",
    )
    config: StrictStr = Field(
        description="The project's `averos.config.json`, relative to the repository root."
    )
    when_modified: list[StrictStr] = Field(
        default_factory=list,
        description="More globs whose change changes the project, relative to its directory "
        "(a leading `/`: to the repository root); `**` spans folders, `{a,b}` and `!neg` work.",
    )


class ProjectList(_Model):
    # No upgrade step exists yet: version 1 is the only one, newer ones are refused.
    format_version: StrictInt = Field(
        default=LIST_FORMAT_VERSION,
        ge=1,
        le=LIST_FORMAT_VERSION,
        description="The file's format version (1, the only one so far).",
    )
    projects: list[ProjectEntry] = Field(description="The projects of the repository.")


def load_project_list(path: Path) -> tuple[ProjectList, Document]:
    """Parse and validate the list file; errors are located (line, column, JSON pointer)."""
    try:
        doc = load_document(path, max_bytes=_MAX_BYTES, what="project list")
    except SourceError as exc:
        raise ConfigError(
            exc.message, path=exc.path, line=exc.line, column=exc.column, hint=exc.hint
        ) from None
    try:
        return ProjectList.model_validate(doc.data), doc
    except ValidationError as exc:
        message, line, col = doc.locate_validation_error(exc, key_on_extra=True)
        raise ConfigError(
            message,
            path=path,
            line=line,
            column=col,
            hint="see 'averos-ci projects' in the README (keys: formatVersion, projects[].name, "
            ".config, .whenModified)",
        ) from None
