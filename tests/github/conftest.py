from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.github.gh_fake import FakeGitHub, running_fake


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    """A fresh fake GitHub API on 127.0.0.1 (threaded: jobs run as separate processes)."""
    with running_fake() as fake:
        yield fake
