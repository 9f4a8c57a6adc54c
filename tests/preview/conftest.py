"""The Angular fixtures (one template workspace cache) for the preview test."""

from __future__ import annotations

from tests.execute.adapters.angular.conftest import (
    angular_cache_dir,
    angular_env,
    angular_template,
)

__all__ = ["angular_cache_dir", "angular_env", "angular_template"]
