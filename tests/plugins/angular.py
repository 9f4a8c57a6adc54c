"""The Angular template workspace, registered once for the whole suite (``pytest_plugins`` in
tests/conftest.py): built once per cache dir (``angular_template``), the adapter pointed at that
cache (``angular_env``), and ``require_node``.

Tests needing Node are marked ``angular``. Without Node they are skipped, except under
``CI=true``, where a missing toolchain fails them (CI must never pass by skipping).
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from averos_ci.execute.adapters.angular.options import cache_root
from averos_ci.execute.adapters.angular.testing import node_missing_reason, template_workspace
from tests.conftest import unavailable


def _require_node() -> None:
    reason = node_missing_reason()
    if reason is None:
        return
    unavailable(f"the Angular tests need Node.js: {reason}")


@pytest.fixture
def require_node() -> None:
    _require_node()


@pytest.fixture(scope="session")
def angular_cache_dir() -> Path:
    """Resolved with the real $HOME, before the per-test empty $HOME is installed."""
    return cache_root(None)


@pytest.fixture(scope="session")
def angular_template(angular_cache_dir: Path) -> Path:
    """The cached template workspace. Under pytest-xdist every worker asks for it: an exclusive
    lock on a file in the cache folder makes the first one build it (minutes on a cold cache)
    while the others wait, then find it ready (the build itself renames a finished staging
    folder into place, so a reader never sees half a template)."""
    _require_node()
    old = os.environ.get("AVEROS_CI_CACHE_DIR")
    os.environ["AVEROS_CI_CACHE_DIR"] = str(angular_cache_dir)
    try:
        angular_cache_dir.mkdir(parents=True, exist_ok=True)
        with (angular_cache_dir / ".template-build.lock").open("a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
            return template_workspace()
    finally:
        if old is None:
            del os.environ["AVEROS_CI_CACHE_DIR"]
        else:
            os.environ["AVEROS_CI_CACHE_DIR"] = old


@pytest.fixture
def angular_env(angular_cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Point the adapter at the session's cache (tests run with an empty $HOME)."""
    monkeypatch.setenv("AVEROS_CI_CACHE_DIR", str(angular_cache_dir))
    yield angular_cache_dir
