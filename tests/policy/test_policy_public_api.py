"""The public API of averos_ci.policy and averos_ci.projects is listed and importable."""

from __future__ import annotations

import averos_ci.policy as policy
import averos_ci.projects as projects


def test_public_api_is_listed_and_importable() -> None:
    assert set(policy.__all__) == {
        "PermissionLevel", "PolicyResult", "PolicySettings", "ProtectedElement", "Requirement",
        "Violation", "evaluate_policy", "load_policy", "render_policy_markdown",
        "render_policy_text",
    }  # fmt: skip
    assert set(projects.__all__) == {
        "LIST_FILE_NAME", "Project", "ProjectEntry", "ProjectList", "changed_projects",
        "default_project_name", "discover_projects", "matrix", "projects_command", "render",
        "repository_root", "select_projects", "touched_projects", "write_step_outputs",
    }  # fmt: skip
    for module in (policy, projects):
        for name in module.__all__:
            assert getattr(module, name) is not None
