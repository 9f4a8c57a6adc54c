"""``averos-ci init``: a working setup written into the current repository.

Writes (or finds) the project config, the workflows adapted to the default branch and the
projects, the local action they use (the one file naming averos-ci's repository and release)
and the pre-commit entry pinned to this release; returns the checklist of what only
a person can do in GitHub's settings. A file that exists and differs is never overwritten
without ``force``: with a conflict nothing at all is written. A second run changes nothing.
"""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from averos_ci._fs import atomic_write_text
from averos_ci.config import CONFIG_FILE_NAME
from averos_ci.execute.adapters.registry import adapter_name
from averos_ci.onboard import precommit
from averos_ci.onboard.checklist import settings_checklist
from averos_ci.onboard.pins import RELEASE_TAG, action_repository
from averos_ci.onboard.repo import default_branch, repository_root
from averos_ci.onboard.templates import (
    LOCAL_ACTION,
    MONOREPO,
    SINGLE,
    adapt,
    local_action,
    template,
)
from averos_ci.projects.discover import discover_projects

MANIFEST_NAME = "averos.manifest.yaml"
STARTER_MANIFEST = """\
# A starting manifest: add entities, use cases and languages (docs/reference/manifest.md).
applicationName: MyApp
defaultLanguageCode: en
enableAuthentication: false
entities: []
useCases: []
languages:
  - languageCode: en
    translationEntries: []
"""


class Change(StrEnum):
    CREATE = "create"
    UPDATE = "update"  # a merge into the user's file (the pre-commit entry), or --force
    UNCHANGED = "unchanged"
    CONFLICT = "conflict"  # exists and differs: refused without --force


@dataclass(frozen=True)
class PlannedFile:
    path: str  # repository-relative, POSIX
    content: str
    change: Change
    diff: str = ""  # unified diff from the file on disk (update, conflict)
    why: str = ""


@dataclass(frozen=True)
class InitResult:
    root: Path
    branch: str
    projects: tuple[str, ...]  # config paths found or written
    files: tuple[PlannedFile, ...]
    checklist: tuple[str, ...]
    dry_run: bool
    written: bool
    notes: tuple[str, ...] = ()

    @property
    def conflicts(self) -> tuple[PlannedFile, ...]:
        return tuple(f for f in self.files if f.change is Change.CONFLICT)

    @property
    def changed(self) -> bool:
        return any(f.change is not Change.UNCHANGED for f in self.files)


def init_repository(
    start: Path,
    *,
    branch: str | None = None,
    action_repo: str | None = None,
    adapter: str | None = None,
    dry_run: bool = False,
    force: bool = False,
) -> InitResult:
    root = repository_root(start)
    branch = default_branch(root, branch)
    repo = action_repository(action_repo)
    wanted: dict[str, str] = {}
    configs = [p.config for p in discover_projects(root)]
    if not configs:
        configs = [CONFIG_FILE_NAME]
        wanted[CONFIG_FILE_NAME] = _starter_config(adapter_name(adapter))
        if not (root / MANIFEST_NAME).exists():
            wanted[MANIFEST_NAME] = STARTER_MANIFEST
    names = MONOREPO if len(configs) > 1 else SINGLE
    config = None if len(configs) > 1 or configs[0] == CONFIG_FILE_NAME else configs[0]
    for name in names:
        text = adapt(template(name), branch=branch, action_repo=repo, config=config)
        wanted[f".github/workflows/{name}"] = text
    wanted[LOCAL_ACTION] = adapt(local_action(), branch=branch, action_repo=repo)
    files = [_plan(root, path, text, force=force) for path, text in wanted.items()]
    files.append(_plan_precommit(root, repo_url=f"https://github.com/{repo}", force=force))
    blocked = any(f.change is Change.CONFLICT for f in files)
    write = not dry_run and not blocked
    if write:
        for f in files:
            if f.change in (Change.CREATE, Change.UPDATE):
                atomic_write_text(root / f.path, f.content)
    others = MONOREPO if names is SINGLE else SINGLE
    notes = tuple(
        f".github/workflows/{n} is the other layout's workflow: delete it (it would run too)"
        for n in others
        if (root / ".github" / "workflows" / n).exists()
    )
    return InitResult(
        notes=notes,
        root=root,
        branch=branch,
        projects=tuple(configs),
        files=tuple(files),
        checklist=settings_checklist(branch=branch),
        dry_run=dry_run,
        written=write and any(f.change is not Change.UNCHANGED for f in files),
    )


def _starter_config(adapter: str) -> str:
    config = {
        "mode": "strict",
        "manifestPath": MANIFEST_NAME,
        "workspaceRoot": "app",
        "logsDir": ".averos/logs",
        "statePath": ".averos/state.json",
        "checkpointPath": ".averos/checkpoints.json",
        "adapter": adapter,
        "adapterOptions": {},
    }
    return json.dumps(config, indent=2) + "\n"


def _plan(root: Path, path: str, text: str, *, force: bool) -> PlannedFile:
    target = root / path
    if not target.exists():
        return PlannedFile(path, text, Change.CREATE)
    current = _read(target)
    if current == text:
        return PlannedFile(path, text, Change.UNCHANGED)
    diff = _diff(path, current, text)
    if force:
        return PlannedFile(path, text, Change.UPDATE, diff, "replaced (--force)")
    return PlannedFile(path, text, Change.CONFLICT, diff, "exists and differs")


def _plan_precommit(root: Path, *, repo_url: str, force: bool) -> PlannedFile:
    target = root / precommit.PATH
    current = _read(target) if target.exists() else None
    merged = precommit.merge(current, repo_url=repo_url, rev=RELEASE_TAG, force=force)
    if current is None:
        return PlannedFile(precommit.PATH, merged.text, Change.CREATE)
    if merged.differs is not None:
        return PlannedFile(precommit.PATH, current, Change.CONFLICT, "", merged.differs)
    if merged.text == current:
        return PlannedFile(precommit.PATH, current, Change.UNCHANGED)
    diff = _diff(precommit.PATH, current, merged.text)
    return PlannedFile(precommit.PATH, merged.text, Change.UPDATE, diff, "hook entry added")


def _read(path: Path) -> str:
    return path.read_text(encoding="utf-8", errors="replace")


def _diff(path: str, old: str, new: str) -> str:
    lines = difflib.unified_diff(
        old.splitlines(keepends=True), new.splitlines(keepends=True), f"a/{path}", f"b/{path}"
    )
    return "".join(lines)
