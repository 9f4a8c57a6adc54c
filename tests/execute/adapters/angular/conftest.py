"""Angular fixtures: a copy of the template workspace per test (the template itself and the
cache are tests/plugins/angular.py's, registered for the whole suite)."""

from __future__ import annotations

from pathlib import Path

import pytest

from averos_ci.execute.adapters.angular.testing import fresh_workspace

# Still imported from here by tests/scenarios/angular (conftest.py, test_state_truth.py); the
# fixtures themselves are registered once, by tests/plugins/angular.py.
from tests.plugins.angular import (
    _require_node,
    angular_cache_dir,
    angular_env,
    angular_template,
    require_node,
)

__all__ = ["_require_node", "angular_cache_dir", "angular_env", "angular_template", "require_node"]


@pytest.fixture
def workspace(angular_template: Path, angular_env: Path, tmp_path: Path) -> Path:
    return fresh_workspace(angular_template, tmp_path / "ws", shared_node_modules=True)
