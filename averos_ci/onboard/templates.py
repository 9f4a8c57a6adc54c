"""The files ``init`` writes: the example workflows and the local action they all use
(shipped as package data, one copy: ``averos_ci/onboard/workflows`` and ``…/actions`` are
links to ``examples/workflows`` and ``examples/actions``) adapted to a repository, and the
``.gitignore`` lines of what runs write. The local action is the one file that names
averos-ci's home and release."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable
from importlib import resources
from pathlib import Path

from averos_ci.config import RunConfig
from averos_ci.errors import InputError
from averos_ci.onboard.pins import PLACEHOLDER_REPO, RELEASE_TAG

# The scheduled drift check discovers every project: one workflow for both layouts.
SINGLE = (
    "averos-plan.yml",
    "averos-approve.yml",
    "averos-apply.yml",
    "averos-fork-comment.yml",
    "averos-drift.yml",
)
MONOREPO = ("averos-monorepo.yml", "averos-drift.yml")
# The workflows' `uses: ./.github/actions/averos-ci`: the one file that pins averos-ci
LOCAL_ACTION = ".github/actions/averos-ci/action.yml"
_PIN = re.compile(re.escape(PLACEHOLDER_REPO) + r"@v\d+\.\d+\.\d+")
_BRANCHES = re.compile(r"^(\s*branches: )\[main\]$", re.MULTILINE)
_COMMAND = re.compile(r"^(\s*)command: (plan|approve|apply|gate)$", re.MULTILINE)
_PLAIN_BRANCH = re.compile(r"[A-Za-z0-9][A-Za-z0-9._/-]*")


def template(name: str) -> str:
    return (resources.files("averos_ci.onboard") / "workflows" / name).read_text(encoding="utf-8")


def local_action() -> str:
    """The local action's template (examples/actions/averos-ci/action.yml)."""
    files = resources.files("averos_ci.onboard") / "actions" / "averos-ci" / "action.yml"
    return files.read_text(encoding="utf-8")


def adapt(
    text: str, *, branch: str, action_repo: str, config: str | None = None, release: str = ""
) -> str:
    """``text`` with the default branch, the action's home and release, and (single-project
    workflows only) the project's ``config`` when it is not at the repository root."""
    check_branch(branch)
    shown = branch if _PLAIN_BRANCH.fullmatch(branch) else json.dumps(branch)
    text = _BRANCHES.sub(lambda m: f"{m.group(1)}[{shown}]", text)
    text = _PIN.sub(f"{action_repo}@{release or RELEASE_TAG}", text)
    if config is not None:
        quoted = json.dumps(config)
        text = _COMMAND.sub(lambda m: f"{m.group(0)}\n{m.group(1)}config: {quoted}", text)
    return text


def check_branch(branch: str) -> None:
    bad = (
        not branch
        or branch.startswith(("-", "/", "."))
        or branch.endswith(("/", ".lock", "."))
        or ".." in branch
        or "@{" in branch
        or any(c.isspace() or ord(c) < 32 or c in "~^:?*[\\\"'`$" for c in branch)
    )
    if bad:
        raise InputError(
            f"{branch!r} is not a usable branch name",
            hint="pass --default-branch NAME (the branch your pull requests merge into)",
        )


GITIGNORE = ".gitignore"
GITIGNORE_HEADER = (
    "# averos-ci: what runs and previews write that is not the project "
    "(docs/how-to/what-to-commit.md)"
)


def ignored_paths(root: Path, configs: Iterable[RunConfig], *, local: bool) -> list[str]:
    """The ``.gitignore`` lines of the projects' run output: logs (preview data included),
    checkpoints, the scratch generations, state backups, an in-tree template cache and the
    installed dependencies. A local project commits its state and pristine tree (the base of
    the next merge); a CI project keeps them on the state branch, so its checkout ignores them."""
    lines: list[str] = []
    for cfg in configs:
        state_dir = cfg.state_path.parent
        paths = [
            (cfg.logs_dir, True),
            (cfg.checkpoint_path, False),
            (state_dir / "regen", True),
            (cfg.state_path.with_name(f"{cfg.state_path.name}.serial-*.bak"), False),
        ]
        if not local:
            paths += [(cfg.state_path, False), (state_dir / "pristine", True)]
        cache = cfg.adapter_options.get("cacheDir")
        if isinstance(cache, str) and cache:
            paths.append((cfg.base_dir / Path(cache).expanduser(), True))
        for path, folder in paths:
            line = _anchored(root, path, folder=folder)
            if line is not None and line not in lines:
                lines.append(line)
    lines.append("node_modules/")
    return lines


def gitignore(current: str | None, lines: list[str]) -> str:
    """``current`` with the ``lines`` it lacks appended under one comment (nothing removed)."""
    text = current or ""
    present = {line.strip() for line in text.splitlines()}
    missing = [line for line in lines if line not in present]
    if not missing:
        return text
    block = "\n".join([GITIGNORE_HEADER, *missing]) + "\n"
    if not text:
        return block
    return text.rstrip("\n") + "\n\n" + block


def _anchored(root: Path, path: Path, *, folder: bool) -> str | None:
    """``/rel/path`` (``/rel/folder/``) for a path inside ``root``; ``None`` outside it (or at
    its top: the repository itself is never ignored)."""
    try:
        rel = Path(os.path.normpath(path)).relative_to(root).as_posix()
    except ValueError:
        return None
    if rel in ("", "."):
        return None
    special = any(c in rel for c in "\\!#[]") or rel[:1].isspace() or rel[-1:].isspace()
    if special:  # a name git would read as a pattern: not ours to quote
        return None
    return "/" + rel + ("/" if folder else "")
