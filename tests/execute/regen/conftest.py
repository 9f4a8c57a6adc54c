"""The Angular fixtures of tests/execute/adapters/angular (one template workspace cache) and
the applied projects the real-Angular tests share (tests/scenarios/angular/applied.py)."""

from __future__ import annotations

from tests.execute.adapters.angular.conftest import (
    angular_cache_dir,
    angular_env,
    angular_template,
    require_node,
)
from tests.scenarios.angular.applied import applied_project

__all__ = [
    "angular_cache_dir",
    "angular_env",
    "angular_template",
    "applied_project",
    "require_node",
]
