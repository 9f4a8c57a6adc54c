"""Same fixtures as tests/execute/adapters/angular (the template workspace cache)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from averos_ci.execute.adapters.angular.cache import cache_root
from averos_ci.execute.adapters.angular.testing import node_missing_reason, template_workspace


@pytest.fixture(scope="session")
def angular_cache_dir() -> Path:
    return cache_root(None)


@pytest.fixture(scope="session")
def angular_template(angular_cache_dir: Path) -> Path:
    reason = node_missing_reason()
    if reason is not None:
        if os.environ.get("CI", "").lower() not in ("", "0", "false", "no"):
            pytest.fail(f"CI is set and the Angular tests cannot run: {reason}")
        pytest.skip(f"Angular tests need Node.js: {reason}")
    old = os.environ.get("AVEROS_CI_CACHE_DIR")
    os.environ["AVEROS_CI_CACHE_DIR"] = str(angular_cache_dir)
    try:
        return template_workspace()
    finally:
        if old is None:
            del os.environ["AVEROS_CI_CACHE_DIR"]


@pytest.fixture
def angular_env(angular_cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("AVEROS_CI_CACHE_DIR", str(angular_cache_dir))
    return angular_cache_dir
