from __future__ import annotations

from collections.abc import Iterator

import pytest
from pytest_httpserver import HTTPServer

from tests.github.gh_fake import FakeGitHub


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    """A fresh fake GitHub API on 127.0.0.1 (threaded: jobs run as separate processes)."""
    server = HTTPServer(host="127.0.0.1", port=0, threaded=True)
    server.start()
    try:
        yield FakeGitHub(server)
    finally:
        server.clear()
        server.stop()
