"""The documentation site, built once per session from the working tree (mkdocs --strict)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT


@pytest.fixture(scope="session")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    out = tmp_path_factory.mktemp("site")
    config = load_config(str(REPO_ROOT / "mkdocs.yml"), site_dir=str(out), strict=True)
    build(config)  # raises on any warning (a broken link, a missing page, a bad anchor)
    return out
