"""Projects of a repository: discovery, change detection and the GitHub Actions matrix."""

from averos_ci.projects.changed import changed_projects, touched_projects
from averos_ci.projects.discover import discover_projects
from averos_ci.projects.listfile import LIST_FILE_NAME, ProjectEntry, ProjectList
from averos_ci.projects.model import Project, default_project_name
from averos_ci.projects.output import matrix, render, write_step_outputs
from averos_ci.projects.selection import projects_command, repository_root, select_projects

__all__ = [
    "LIST_FILE_NAME",
    "Project",
    "ProjectEntry",
    "ProjectList",
    "changed_projects",
    "default_project_name",
    "discover_projects",
    "matrix",
    "projects_command",
    "render",
    "repository_root",
    "select_projects",
    "touched_projects",
    "write_step_outputs",
]
