"""``averos-ci preview --screenshot DIR`` on the library example, generated with the real
schematics: one PNG per entity page; each create page shows the entity's form, each search
page the records the mock backend was seeded with (an empty list or a blank page fails)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from averos_ci.config import load_config
from averos_ci.manifest import load_manifest
from averos_ci.planning import apply
from averos_ci.preview import sample_records
from tests.conftest import unavailable
from tests.scenarios.angular.slot import warm_folder

pytestmark = [pytest.mark.angular, pytest.mark.slow]

LIBRARY = Path(__file__).parents[1] / "scenarios" / "angular" / "data" / "library.manifest.yaml"
CHROMIUM = os.environ.get("AVEROS_CI_CHROMIUM", "/usr/bin/chromium")
PNG = b"\x89PNG\r\n\x1a\n"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _library_project(project: Path, api_port: int) -> Path:
    """The example with its backend on a free port (3000 may be taken on a shared machine)."""
    project.mkdir(exist_ok=True)  # a warm folder holds its workspace's Angular cache
    yaml = YAML()
    doc = yaml.load(LIBRARY.read_text(encoding="utf-8"))
    doc["serviceConfigurations"][0]["apiPort"] = api_port
    for entry in doc["authentication"][0]["config"]:
        if entry["key"] == "authBackendUrl":
            entry["value"] = f"http://127.0.0.1:{api_port}"
    with (project / "library.manifest.yaml").open("w", encoding="utf-8") as f:
        yaml.dump(doc, f)
    config = {
        "workspaceRoot": "workspace",
        "manifestPath": "library.manifest.yaml",
        "adapter": "angular-schematics",
        "adapterOptions": {"templateCache": True},
    }
    (project / "averos.config.json").write_text(json.dumps(config), encoding="utf-8")
    return project / "averos.config.json"


def test_preview_screenshots_every_entity_page_with_the_seeded_records(
    angular_template: Path, angular_env: Path, tmp_path: Path
) -> None:
    """The project sits in a folder that keeps its workspace's Angular cache from one run to
    the next (``warm_folder``) and ``preview`` runs as on a developer's machine, without
    ``CI`` (under ``CI=true`` Angular turns its cache off): the build a developer's second
    preview makes, the generation and everything else from nothing."""
    if not Path(CHROMIUM).is_file():
        unavailable(f"preview --screenshot needs Chromium at {CHROMIUM} (.ci/run installs it)")
    with warm_folder(angular_env, "preview", "project/workspace/.angular") as folder:
        config = _library_project(folder / "project", _free_port())
        outcome = apply(load_config(config))
        assert outcome.summary.success, outcome.summary.failures

        shots = tmp_path / "shots"
        cmd = [sys.executable, "-m", "averos_ci", "preview", "--config", str(config)]
        proc = subprocess.run(
            [*cmd, "--port", "0", "--screenshot", str(shots), "--chromium", CHROMIUM],
            capture_output=True,
            text=True,
            timeout=3000,
            check=False,
            env={k: v for k, v in os.environ.items() if k != "CI"},
        )
        manifest, _ = load_manifest(config.parent / "library.manifest.yaml")
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "preview: the app is at http://127.0.0.1:" in proc.stdout

    pages: list[dict[str, Any]] = json.loads((shots / "pages.json").read_text())["pages"]
    by_name = {p["name"]: p for p in pages}
    # the example's use cases: BookCRUD (create + search) and SearchBook (search)
    assert sorted(by_name) == ["book-create", "book-search"]
    assert sorted(p.name for p in shots.glob("*.png")) == ["book-create.png", "book-search.png"]
    for page in pages:
        assert (shots / page["png"]).read_bytes().startswith(PNG)
        assert page["status"] == "ok" and page["url"].endswith(page["path"]), page
        assert page["iconsAsWords"] == [], page  # the icon font is served offline

    create = by_name["book-create"]["text"]
    assert {"Title", "Author", "Pages", "Genre", "Save"} <= set(create.split("\n")), create

    books = sample_records(manifest)["Book"]
    search = by_name["book-search"]["text"]
    for book in books:  # every seeded record is listed, with its typed values
        for key in ("title", "author", "pages", "genre"):
            assert str(book[key]) in search, (key, book[key], search)
