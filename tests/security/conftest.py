from __future__ import annotations

from tests.github.conftest import fake

__all__ = ["fake"]  # the same fake GitHub API fixture as the unit tests
