"""A project: one ``averos.config.json`` of a repository, and the paths that change it."""

from __future__ import annotations

import os
import posixpath
from dataclasses import dataclass

from averos_ci.errors import InputError

# A project's name becomes a status context, a state-branch folder and a matrix value.
_FORBIDDEN_CHARS = frozenset("~^:?*[<>|\"'`$\\")


@dataclass(frozen=True)
class Project:
    """Repository-relative POSIX paths: the same on every runner and in every output."""

    name: str
    config: str  # e.g. ``apps/portal/averos.config.json``
    directory: str  # the config's directory, ``.`` at the root
    manifest: str | None  # ``None`` when the manifest lies outside the repository
    when_modified: tuple[str, ...] = ()  # extra globs, repository-relative

    @property
    def watched_paths(self) -> frozenset[str]:
        """Files whose change always changes the project."""
        return frozenset(p for p in (self.config, self.manifest) if p is not None)

    def to_wire(self) -> dict[str, object]:
        return {
            "name": self.name,
            "config": self.config,
            "directory": self.directory,
            "manifest": self.manifest,
            "whenModified": list(self.when_modified),
        }


def default_project_name(directory: str) -> str:
    """The config's directory relative to the repository root, ``default`` at the root (the
    name the GitHub flow gives a project when ``github.project`` is not set)."""
    return "default" if directory in ("", ".") else directory


def safe_name_problem(value: str) -> str | None:
    """Why ``value`` cannot name a project, or ``None``."""
    if not value:
        return "is empty"
    if value.startswith(("/", "-", ".")) or value.endswith("/") or os.path.isabs(value):
        return "must not start with '/', '-' or '.', nor end with '/'"
    if ".." in value or any(c in _FORBIDDEN_CHARS for c in value):
        return "contains '..' or one of ~^:?*[<>|\"'`$\\"
    if any(c.isspace() or ord(c) < 32 for c in value) or value.endswith(".lock"):
        return "contains white space or control characters, or ends with '.lock'"
    return None


def repo_relative_glob(pattern: str, *, directory: str, where: str) -> str:
    """A ``whenModified`` glob relative to the project directory (``/x`` = repository root),
    as a repository-relative glob. Globs that leave the repository are refused."""
    base = "" if pattern.startswith("/") else directory
    joined = posixpath.normpath(posixpath.join(base, pattern.lstrip("/")))
    if joined == ".." or joined.startswith("../") or not pattern.strip():
        raise InputError(
            f"whenModified glob {pattern!r} leaves the repository",
            path=where,
            hint="write globs relative to the project directory ('../shared/**'), "
            "or to the repository root with a leading '/'",
        )
    return joined
