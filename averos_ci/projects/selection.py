"""``averos-ci projects``: list the projects of a repository, or those a change touches."""

from __future__ import annotations

import sys
from pathlib import Path

from averos_ci.errors import InputError
from averos_ci.projects.changed import changed_projects
from averos_ci.projects.discover import discover_projects
from averos_ci.projects.model import Project
from averos_ci.projects.output import MAX_JOBS, render, write_step_outputs


def projects_command(
    *,
    root: Path | None = None,
    changed: bool = False,
    base: str | None = None,
    head: str = "HEAD",
    output_format: str = "text",
    max_jobs: int = MAX_JOBS,
) -> int:
    """Print the projects (all, or with ``changed`` those the diff touches); under GitHub
    Actions also write the ``matrix``/``projects``/``count`` step outputs, the matrix in at
    most ``max_jobs`` entries. Exit 0."""
    if not 1 <= max_jobs <= MAX_JOBS:
        raise InputError(
            f"--max-jobs must be between 1 and {MAX_JOBS}, not {max_jobs}",
            hint=f"GitHub Actions runs at most {MAX_JOBS} jobs of one matrix",
        )
    projects = select_projects(root=root, changed=changed, base=base, head=head)
    sys.stdout.write(render(projects, output_format, max_jobs=max_jobs))
    write_step_outputs(projects, max_jobs=max_jobs)
    return 0


def select_projects(
    *, root: Path | None = None, changed: bool = False, base: str | None = None, head: str = "HEAD"
) -> list[Project]:
    top = repository_root(root or Path.cwd())
    projects = discover_projects(top)
    if not changed:
        if base is not None:
            raise InputError("--base is only used with --changed", hint="add --changed")
        return projects
    if not base:
        raise InputError(
            "--changed needs --base",
            hint='pass the pull request\'s base commit (--base "$BASE_SHA", the variable set '
            "from github.event.pull_request.base.sha)",
        )
    return changed_projects(projects, root=top, base=base, head=head)


def repository_root(start: Path) -> Path:
    """The top level of the git work tree containing ``start`` (``start`` itself outside git)."""
    start = start.resolve()
    if not start.is_dir():
        raise InputError("not a directory", path=start, hint="pass the repository's directory")
    for d in (start, *start.parents):
        if (d / ".git").exists():
            return d
    return start
