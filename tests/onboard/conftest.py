from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from pytest_httpserver import HTTPServer

from tests.onboard.settings_fake import SettingsFake
from tests.openapi_check import OpenAPISpec, load_spec, spec_path

IDENTITY = ("-c", "user.name=Onboard Test", "-c", "user.email=onboard@example.com")


def git(repo: Path, *args: str) -> str:
    proc = subprocess.run(
        ["git", *IDENTITY, "-C", str(repo), *args], capture_output=True, text=True, check=True
    )
    return proc.stdout.strip()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """An empty git repository whose default branch is ``main``."""
    path = tmp_path / "repo"
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    return path


@pytest.fixture(scope="session")
def openapi_spec_file() -> Path:
    return spec_path()  # resolved before a test's private $HOME is in place


@pytest.fixture(scope="session")
def openapi_spec(openapi_spec_file: Path) -> OpenAPISpec:
    return load_spec(openapi_spec_file)


@pytest.fixture
def settings_fake(httpserver: HTTPServer, openapi_spec: OpenAPISpec) -> Iterator[SettingsFake]:
    fake = SettingsFake(httpserver, openapi_spec)
    yield fake
    fake.check_exchanges()
