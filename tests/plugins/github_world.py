"""The GitHub test world, registered once for the whole suite (``pytest_plugins`` in
tests/conftest.py): ``fake``, a fresh fake GitHub API on 127.0.0.1, and ``world``, the default
repository world on it where alice and bob may write. A module that needs another world (other
roles, settings or adapter options) defines its own ``world``, which overrides this one."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.github.gh_fake import FakeGitHub, running_fake
from tests.github.gh_world import World, make_world


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    """A fresh fake GitHub API on 127.0.0.1 (threaded: jobs run as separate processes)."""
    with running_fake() as fake:
        yield fake


@pytest.fixture
def world(tmp_path: Path, fake: FakeGitHub) -> World:
    """The example project on a fresh origin, alice and bob with write access."""
    fake.roles.update(alice="write", bob="write")
    return make_world(tmp_path, fake)
