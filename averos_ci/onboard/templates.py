"""The files ``init`` writes: the example workflows and the local action they all use
(shipped as package data, one copy: ``averos_ci/onboard/workflows`` and ``…/actions`` are
links to ``examples/workflows`` and ``examples/actions``) adapted to a repository. The local
action is the one file that names averos-ci's home and release."""

from __future__ import annotations

import json
import re
from importlib import resources

from averos_ci.errors import InputError
from averos_ci.onboard.pins import PLACEHOLDER_REPO, RELEASE_TAG

SINGLE = ("averos-plan.yml", "averos-approve.yml", "averos-apply.yml", "averos-fork-comment.yml")
MONOREPO = ("averos-monorepo.yml",)
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
