from __future__ import annotations

from tests.execute.adapters.angular.conftest import angular_cache_dir, angular_env, angular_template
from tests.github.conftest import fake

# the same fake GitHub API fixture as the unit tests; the Angular template for the real adapter
__all__ = ["angular_cache_dir", "angular_env", "angular_template", "fake"]
