"""Finding the projects of a repository.

Either the explicit list in ``averos-ci.yaml``, or every ``averos.config.json`` that git
would not ignore, outside ``node_modules`` and outside the directories the projects
generate (their ``workspaceRoot``, ``logsDir`` and state/checkpoint folders): a generated
Angular workspace may itself carry an ``averos.config.json`` that is no project of its own.
"""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath
from typing import Any

from averos_ci.config import CONFIG_FILE_NAME, RunConfig, load_config
from averos_ci.errors import ConfigError, InputError
from averos_ci.projects.listfile import LIST_FILE_NAME, load_project_list
from averos_ci.projects.model import (
    Project,
    default_project_name,
    repo_relative_glob,
    safe_name_problem,
)
from averos_ci.source import Document

_SKIPPED_DIRS = frozenset({".git", "node_modules", ".averos"})


def discover_projects(root: Path) -> list[Project]:
    """The projects of the repository at ``root`` (its top level), sorted by name."""
    root = root.resolve()
    list_file = root / LIST_FILE_NAME
    if list_file.exists():
        return _listed_projects(root, list_file)
    found = [_project(root, root / rel, name=None, globs=(), where=None) for rel in _configs(root)]
    projects = _outside_generated(root, found)
    _refuse_duplicates(projects, where=None)
    return sorted(projects, key=lambda p: p.name)


def _configs(root: Path) -> list[str]:
    """Repository-relative paths of candidate config files, ignored files left out."""
    if (root / ".git").exists():
        from averos_ci.projects.git import tracked_and_untracked

        paths = tracked_and_untracked(root, f":(glob)**/{CONFIG_FILE_NAME}")
    else:  # not a git checkout: no ignore rules to apply
        paths = []
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = sorted(d for d in dirnames if d not in _SKIPPED_DIRS)
            if CONFIG_FILE_NAME in filenames:
                paths.append(Path(dirpath, CONFIG_FILE_NAME).relative_to(root).as_posix())
    # A symlinked config that leads out of the repository is no project of it.
    return sorted(
        p
        for p in paths
        if not _SKIPPED_DIRS.intersection(PurePosixPath(p).parts)
        and (root / p).is_file()
        and (root / p).resolve().is_relative_to(root)
    )


def _outside_generated(root: Path, projects: list[tuple[Project, RunConfig]]) -> list[Project]:
    generated: set[Path] = set()
    for _, cfg in projects:
        home = cfg.base_dir
        for d in (cfg.workspace_root, cfg.logs_dir, cfg.state_path.parent):
            # A workspaceRoot of "." (or above) is the project's own directory: not generated.
            if d != home and not home.is_relative_to(d):
                generated.add(d)
    # Ancestors against a set: linear in projects x depth, not quadratic in projects.
    return [
        project
        for project, cfg in projects
        if cfg.config_path is None or generated.isdisjoint(cfg.config_path.parents)
    ]


def _listed_projects(root: Path, list_file: Path) -> list[Project]:
    listed, doc = load_project_list(list_file)
    found: list[tuple[Project, RunConfig]] = []
    for i, entry in enumerate(listed.projects):
        where = _loc(doc, list_file, ("projects", i, "config"))
        path = (root / entry.config).resolve()
        if not path.is_relative_to(root) or not path.is_file():
            raise ConfigError(
                f"/projects/{i}/config: {entry.config!r} is not a config file in the repository",
                path=where,
                hint="give the path of an averos.config.json relative to the repository root",
            )
        found.append(
            _project(
                root,
                path,
                name=entry.name,
                globs=tuple(entry.when_modified),
                where=_loc(doc, list_file, ("projects", i)),
            )
        )
    projects = [p for p, _ in found]
    _refuse_duplicates(projects, where=str(list_file))
    return sorted(projects, key=lambda p: p.name)


def _project(
    root: Path, config_path: Path, *, name: str | None, globs: tuple[str, ...], where: str | None
) -> tuple[Project, RunConfig]:
    cfg = load_config(config_path)
    rel_config = config_path.relative_to(root).as_posix()
    directory = PurePosixPath(rel_config).parent.as_posix()
    configured: Any = cfg.github.get("project") if isinstance(cfg.github, dict) else None
    where = where or rel_config
    if name is not None and isinstance(configured, str) and configured != name:
        raise ConfigError(
            f"project name {name!r} differs from github.project {configured!r} in {rel_config}",
            path=where,
            hint="use one name: drop one of the two, or make them equal",
        )
    name = name or (configured if isinstance(configured, str) else None)
    name = name or default_project_name(directory)
    if problem := safe_name_problem(name):
        raise ConfigError(
            f"project name {name!r} {problem}",
            path=where,
            hint="use letters, digits, '-', '_', '.' and '/' separators",
        )
    manifest = cfg.manifest_path
    rel_manifest = manifest.relative_to(root).as_posix() if manifest.is_relative_to(root) else None
    project = Project(
        name=name,
        config=rel_config,
        directory=directory,
        manifest=rel_manifest,
        when_modified=tuple(repo_relative_glob(g, directory=directory, where=where) for g in globs),
    )
    return project, cfg


def _refuse_duplicates(projects: list[Project], *, where: str | None) -> None:
    seen: dict[str, Project] = {}
    for p in projects:
        if p.name in seen:
            raise InputError(
                f"two projects are named {p.name!r}: {seen[p.name].config} and {p.config}",
                path=where or p.config,
                hint="give one of them another name (github.project in its config, or "
                "'name' in averos-ci.yaml)",
            )
        seen[p.name] = p


def _loc(doc: Document, path: Path, pointer: tuple[str | int, ...]) -> str:
    line, col = doc.locate(pointer)
    return f"{path}:{line}:{col}"
