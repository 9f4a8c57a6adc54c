"""The Angular fixtures of tests/execute/adapters/angular (one template workspace cache)."""

from __future__ import annotations

from tests.execute.adapters.angular.conftest import (
    angular_cache_dir,
    angular_env,
    angular_template,
    require_node,
)

__all__ = ["angular_cache_dir", "angular_env", "angular_template", "require_node"]
