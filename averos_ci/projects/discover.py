"""Finding the projects of a repository.

Either the explicit list in ``averos-ci.yaml``, or every ``averos.config.json`` that git
would not ignore, outside ``node_modules`` and outside the directories the projects
generate (their ``workspaceRoot``, ``logsDir`` and state/checkpoint folders): a generated
Angular workspace may itself carry an ``averos.config.json`` that is no project of its own.
"""

from __future__ import annotations

import os
import posixpath
import stat
from pathlib import Path
from typing import Any

from averos_ci.config import CONFIG_FILE_NAME
from averos_ci.errors import ConfigError, InputError
from averos_ci.projects.configview import ConfigView, config_view
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
    found = [
        _project(root, rel, real, name=None, globs=(), where=None) for rel, real in _configs(root)
    ]
    projects = _outside_generated(found)
    _refuse_duplicates(projects, where=None)
    return sorted(projects, key=lambda p: p.name)


def _configs(root: Path) -> list[tuple[str, str]]:
    """Candidate config files: (repository-relative path, resolved absolute path), ignored
    files left out."""
    if (root / ".git").exists():
        from averos_ci.projects.git import tracked_and_untracked

        paths = tracked_and_untracked(root, f":(glob)**/{CONFIG_FILE_NAME}")
    else:  # not a git checkout: no ignore rules to apply
        paths = []
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = sorted(d for d in dirnames if d not in _SKIPPED_DIRS)
            if CONFIG_FILE_NAME in filenames:
                paths.append(Path(dirpath, CONFIG_FILE_NAME).relative_to(root).as_posix())
    top = str(root)
    real_dirs: dict[str, bool] = {top: True}
    found = []
    for rel in sorted(paths):
        if _SKIPPED_DIRS.intersection(rel.split("/")):
            continue
        # A symlinked config that leads out of the repository is no project of it.
        real = _real_file(top, rel, real_dirs)
        if real is not None and _within(real, top):
            found.append((rel, real))
    return found


def _real_file(top: str, rel: str, real_dirs: dict[str, bool]) -> str | None:
    """The resolved path of the regular file ``top/rel``, or None. One ``lstat`` per folder
    (remembered) and per file: ``realpath`` only where a symlink is met."""
    path = posixpath.join(top, rel)
    try:
        plain = _plain_dir(posixpath.dirname(path), real_dirs) and stat.S_ISREG(
            os.lstat(path).st_mode
        )
        if plain:
            return path
        real = os.path.realpath(path)
        return real if stat.S_ISREG(os.stat(real).st_mode) else None
    except OSError:
        return None


def _plain_dir(d: str, real_dirs: dict[str, bool]) -> bool:
    """Whether ``d`` and its parents up to the (resolved) root are folders, no symlinks."""
    known = real_dirs.get(d)
    if known is None:
        parent = posixpath.dirname(d)
        known = parent != d and _plain_dir(parent, real_dirs) and stat.S_ISDIR(os.lstat(d).st_mode)
        real_dirs[d] = known
    return known


def _within(path: str, top: str) -> bool:
    return path == top or path.startswith(top.rstrip("/") + "/")


def _outside_generated(projects: list[tuple[Project, ConfigView]]) -> list[Project]:
    generated: set[str] = set()
    for _, cfg in projects:
        home = cfg.base_dir
        for d in (cfg.workspace_root, cfg.logs_dir, posixpath.dirname(cfg.state_path)):
            # A workspaceRoot of "." (or above) is the project's own directory: not generated.
            if d != home and not _within(home, d):
                generated.add(d)
    # Ancestors against a set: linear in projects x depth, not quadratic in projects.
    return [project for project, cfg in projects if generated.isdisjoint(_parents(cfg.config_path))]


def _parents(path: str) -> list[str]:
    out = []
    while (parent := posixpath.dirname(path)) != path:
        out.append(parent)
        path = parent
    return out


def _listed_projects(root: Path, list_file: Path) -> list[Project]:
    listed, doc = load_project_list(list_file)
    found: list[tuple[Project, ConfigView]] = []
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
                path.relative_to(root).as_posix(),
                str(path),
                name=entry.name,
                globs=tuple(entry.when_modified),
                where=_loc(doc, list_file, ("projects", i)),
            )
        )
    projects = [p for p, _ in found]
    _refuse_duplicates(projects, where=str(list_file))
    return sorted(projects, key=lambda p: p.name)


def _project(
    root: Path,
    rel_config: str,
    real_config: str,
    *,
    name: str | None,
    globs: tuple[str, ...],
    where: str | None,
) -> tuple[Project, ConfigView]:
    cfg = config_view(real_config)
    directory = posixpath.dirname(rel_config) or "."
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
    top = str(root)
    manifest = cfg.manifest_path
    rel_manifest = posixpath.relpath(manifest, top) if _within(manifest, top) else None
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
