from __future__ import annotations

from tests.github.conftest import fake

__all__ = ["fake"]
