"""Which projects a set of changed paths touches: the config, the manifest, or a
``whenModified`` glob. Each project's globs are compiled once, so a large diff over many
projects stays linear in (files x projects) cheap look-ups."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from wcmatch import glob

from averos_ci.projects.model import Project

# GLOBSTAR: '**' spans directories; DOTGLOB: '*' also matches '.github'-style names.
_FLAGS = glob.GLOBSTAR | glob.DOTGLOB | glob.NEGATE | glob.BRACE


def touched_projects(projects: Iterable[Project], paths: Iterable[str]) -> list[Project]:
    """The projects (in the given order) that at least one of ``paths`` changes."""
    changed = set(paths)
    result = []
    for project in projects:
        if changed & project.watched_paths:
            result.append(project)
            continue
        if project.when_modified:
            matcher = glob.compile(list(project.when_modified), flags=_FLAGS)
            if any(matcher.match(p) for p in changed):
                result.append(project)
    return result


def changed_projects(
    projects: Iterable[Project], *, root: Path, base: str, head: str = "HEAD"
) -> list[Project]:
    """The projects a local git diff (merge base of ``base`` and ``head`` → ``head``) changes."""
    from averos_ci.projects.git import changed_files

    return touched_projects(projects, changed_files(root, base=base, head=head))
