"""``averos-ci init``: a working setup written into the current repository.

Writes (or finds) the project config, the ``.gitignore`` lines of what runs write and the
pre-commit entry; for a GitHub project also the workflows adapted to the default branch and
the projects and the local action they use (the one file naming averos-ci's repository and
release), and returns the checklist of what only a person can do in GitHub's settings. A
local project (``local=True``, or no GitHub remote and no ``action_repo``) gets no workflows:
it is planned and applied on the machine. A file that exists and differs is never
overwritten without ``force``: with a conflict nothing at all is written. A second run
changes nothing.
"""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from averos_ci._fs import atomic_write_text
from averos_ci.config import CONFIG_FILE_NAME, RunConfig, default_config, load_config
from averos_ci.errors import InputError
from averos_ci.execute.adapters.registry import adapter_name
from averos_ci.onboard import precommit
from averos_ci.onboard.checklist import settings_checklist
from averos_ci.onboard.pins import RELEASE_TAG, action_repository, installed_from
from averos_ci.onboard.repo import (
    default_branch,
    origin_slug,
    repository_root,
    source_clone,
    source_clone_slug,
)
from averos_ci.onboard.templates import (
    GITIGNORE,
    LOCAL_ACTION,
    MONOREPO,
    SINGLE,
    adapt,
    gitignore,
    ignored_paths,
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
    local: bool = False  # no workflows: planned and applied on the machine

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
    local: bool | None = None,
    dry_run: bool = False,
    force: bool = False,
) -> InitResult:
    """``local``: ``True`` writes no GitHub files; ``None`` decides: a GitHub project when
    ``action_repo`` is given or ``origin`` is on github.com, else a local one (said in the
    notes)."""
    root = repository_root(start)
    branch = default_branch(root, branch)
    notes: list[str] = []
    if local is None:
        local = action_repo is None and origin_slug(root) is None
        if local:
            notes.append(
                "no GitHub remote (origin): a local project, planned and applied on this "
                "machine (no workflows); once it is on GitHub, run `averos-ci init` again for "
                "the workflows"
            )
    github = None if local else _github_pin(action_repo)  # the workflows' action
    pin = _local_pin(action_repo) if github is None else github
    wanted: dict[str, str] = {}
    configs = [p.config for p in discover_projects(root)]
    runs: list[RunConfig] = []
    if not configs:
        configs = [CONFIG_FILE_NAME]
        wanted[CONFIG_FILE_NAME] = _starter_config(adapter_name(adapter))
        runs.append(default_config(root))  # the starter's paths are the defaults
        if not (root / MANIFEST_NAME).exists():
            wanted[MANIFEST_NAME] = STARTER_MANIFEST
    else:
        runs = [load_config(root / rel) for rel in configs]  # discovery loaded them once
    names: tuple[str, ...] = MONOREPO if len(configs) > 1 else SINGLE
    if github is not None:
        config = None if len(configs) > 1 or configs[0] == CONFIG_FILE_NAME else configs[0]
        for name in names:
            text = adapt(template(name), branch=branch, action_repo=github, config=config)
            wanted[f".github/workflows/{name}"] = text
        wanted[LOCAL_ACTION] = adapt(local_action(), branch=branch, action_repo=github)
    files = [_plan(root, path, text, force=force) for path, text in wanted.items()]
    files.append(_plan_gitignore(root, ignored_paths(root, runs, local=local)))
    url = None if pin is None else f"https://github.com/{pin}"
    files.append(_plan_precommit(root, repo_url=url, force=force))
    blocked = any(f.change is Change.CONFLICT for f in files)
    write = not dry_run and not blocked
    if write:
        for f in files:
            if f.change in (Change.CREATE, Change.UPDATE):
                atomic_write_text(root / f.path, f.content)
    if not local:
        others = MONOREPO if names is SINGLE else SINGLE
        notes += [
            f".github/workflows/{n} is the other layout's workflow: delete it (it would run too)"
            for n in others
            if n not in names and (root / ".github" / "workflows" / n).exists()
        ]
    return InitResult(
        notes=tuple(notes),
        root=root,
        branch=branch,
        projects=tuple(configs),
        files=tuple(files),
        checklist=() if local else settings_checklist(branch=branch),
        dry_run=dry_run,
        written=write and any(f.change is not Change.UNCHANGED for f in files),
        local=local,
    )


def _github_pin(given: str | None) -> str:
    """averos-ci's GitHub repository for the workflows: given, where pip installed it from,
    or the ``origin`` of the clone it runs from (an editable install)."""
    if given is not None or installed_from() is not None:
        return action_repository(given)
    found = source_clone_slug()
    if found is not None:
        return found
    clone = source_clone()
    look = f" (see `git -C {clone} remote -v`)" if clone is not None else ""
    raise InputError(
        "cannot tell which GitHub repository averos-ci comes from (it was not installed from "
        "a github.com URL, and no clone it runs from has a github.com origin)",
        hint=f"pass --action-repo OWNER/NAME: a GitHub repository of averos-ci that has the "
        f"release tag {RELEASE_TAG}{look} (the workflows run its action at that tag); or "
        "start on this machine with `averos-ci init --local`",
    )


def _local_pin(given: str | None) -> str | None:
    """The pre-commit hook's repository of a local project, when known (else a local hook)."""
    if given is not None:
        return action_repository(given)
    return installed_from() or source_clone_slug()


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


def _plan_gitignore(root: Path, lines: list[str]) -> PlannedFile:
    """The lines are added to the user's file (never a conflict: nothing is removed)."""
    target = root / GITIGNORE
    current = _read(target) if target.exists() else None
    text = gitignore(current, lines)
    if current is None:
        return PlannedFile(GITIGNORE, text, Change.CREATE)
    if text == current:
        return PlannedFile(GITIGNORE, current, Change.UNCHANGED)
    diff = _diff(GITIGNORE, current, text)
    return PlannedFile(GITIGNORE, text, Change.UPDATE, diff, "lines added")


def _plan_precommit(root: Path, *, repo_url: str | None, force: bool) -> PlannedFile:
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
