"""The generated application works in a real browser, against the backend its manifest names.

Generates the library app (data/library.manifest.yaml) with the real schematics, builds it,
serves the build, starts a real json-server at the manifest's apiHost/apiPort (which also
answers the runtime's /auth/login at the provider's authBackendUrl) and drives headless
Chromium through playwright-core (tests/browser/drive.js): the create page saves a record that
json-server holds as typed, the search page lists it, the language switch shows the manifest's
French label; then an incremental apply adds a member, and the new field is in the form and saved.
Screenshots of every step are in tmp_path; failures name them.
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from averos_ci.config import load_config
from averos_ci.execute import apply
from averos_ci.preview import serve_spa
from averos_ci.preview.build import build_app
from averos_ci.preview.procs import start, stop, wait_port
from tests.scenarios.angular import browser
from tests.scenarios.angular.browser import LOGIN_JS, drive, free_port
from tests.scenarios.angular.slot import build_in_slot

pytestmark = [pytest.mark.angular, pytest.mark.slow]

DATA = Path(__file__).parent / "data"
browser_tools = browser.browser_tools  # the shared fixture
BOOK = {"Name": "dune", "Title": "Dune", "Author": "Frank Herbert", "Pages": "412"}


@pytest.fixture
def spa(tmp_path: Path) -> Iterator[tuple[Path, str]]:
    """(directory served, its URL); the directory is filled by the build."""
    root = tmp_path / "served"
    root.mkdir()
    with serve_spa(root) as url:
        yield root, url.rstrip("/")


def _write_manifest(source: Path, dest: Path, api_port: int) -> None:
    yaml = YAML()
    doc = yaml.load(source.read_text(encoding="utf-8"))
    doc["serviceConfigurations"][0]["apiPort"] = api_port
    for entry in doc["authentication"][0]["config"]:
        if entry["key"] == "authBackendUrl":
            entry["value"] = f"http://127.0.0.1:{api_port}"
    with dest.open("w", encoding="utf-8") as f:
        yaml.dump(doc, f)


def _apply(project: Path, manifest: Path, api_port: int) -> None:
    _write_manifest(manifest, project / "library.manifest.yaml", api_port)
    outcome = apply(load_config(project / "averos.config.json"))
    assert outcome.summary.success, outcome.summary.failures


def _build(ws: Path, cache: Path, served: Path) -> None:
    log = ws.parent / "build.log"
    built = build_in_slot(ws, cache, lambda copy: build_app(copy, npx="npx", cache=cache, log=log))
    shutil.rmtree(served)
    shutil.copytree(built, served)


def _books(db: Path) -> list[dict[str, Any]]:
    books: list[dict[str, Any]] = json.loads(db.read_text(encoding="utf-8"))["books"]
    return books


def test_generated_app_in_a_browser_against_its_json_server(
    browser_tools: Path,
    angular_env: Path,
    spa: tuple[Path, str],
    tmp_path: Path,
) -> None:
    served, base_url = spa
    api_port = free_port()
    project = tmp_path / "project"
    project.mkdir()
    config = {
        "mode": "strict",
        "workspaceRoot": "workspace",
        "manifestPath": "library.manifest.yaml",
        "logsDir": ".averos/logs",
        "statePath": ".averos/state.json",
        "checkpointPath": ".averos/checkpoints.json",
        "adapter": "angular-schematics",
        "adapterOptions": {"templateCache": True},
    }
    (project / "averos.config.json").write_text(json.dumps(config))
    _apply(project, DATA / "library.manifest.yaml", api_port)
    ws = project / "workspace"
    service = (ws / "src/app/service/book-service.service.ts").read_text()
    assert f"public bookAPI = 'http://127.0.0.1:{api_port}/books';" in service
    _build(ws, angular_env, served)

    backend = tmp_path / "backend"
    backend.mkdir()
    db = backend / "db.json"
    db.write_text('{"books": []}\n')
    log = backend / "json-server.log"
    json_server = browser_tools / "node_modules" / ".bin" / "json-server"
    options = ["--host", "127.0.0.1", "--port", str(api_port), "--middlewares", str(LOGIN_JS)]
    server = start([str(json_server), str(db), *options], cwd=backend, log=log)
    try:
        if not wait_port(api_port, server, deadline=time.monotonic() + 60):
            pytest.fail(f"json-server did not listen on {api_port}:\n{log.read_text()}")
        fields = [{"label": k, "value": v} for k, v in BOOK.items()]
        result = drive(
            browser_tools,
            tmp_path / "shots-v1",
            {
                "baseUrl": base_url,
                "login": {"user": "reader", "password": "correct-horse-battery"},
                "create": {
                    "path": "/books/create",
                    "fields": [*fields, {"label": "Genre", "option": "Novel"}],
                },
                "search": {"path": "/books/search", "expect": "Frank Herbert"},
                "language": {"code": "fr", "path": "/books/create", "expectLabel": "Titre"},
            },
        )
        shots = result["shots"]
        assert result["saveUrl"] == f"http://127.0.0.1:{api_port}/books", shots
        [book] = _books(db)
        assert (book["title"], book["author"], book["pages"], book["genre"]) == (
            "Dune",
            "Frank Herbert",
            412,
            "Novel",
        ), shots
        assert result["searchUrl"].startswith(f"http://127.0.0.1:{api_port}/books"), shots
        assert {"Titre", "Auteur", "Nombre de pages"} <= set(result["labels"]["language"]), shots
        assert "ISBN" not in result["labels"]["create"]

        # incremental apply: Book gains `isbn`; only the new nodes run, then rebuild
        _apply(project, DATA / "library.v2.manifest.yaml", api_port)
        assert "isbn!: string;" in (ws / "src/app/model/book.ts").read_text()
        _build(ws, angular_env, served)
        result = drive(
            browser_tools,
            tmp_path / "shots-v2",
            {
                "baseUrl": base_url,
                "login": {"user": "reader", "password": "correct-horse-battery"},
                "create": {
                    "path": "/books/create",
                    "fields": [
                        {"label": "Name", "value": "ficciones"},
                        {"label": "Title", "value": "Ficciones"},
                        {"label": "ISBN", "value": "978-0-8021-3030-4"},
                        {"label": "Genre", "option": "Essay"},
                    ],
                },
            },
        )
        assert "ISBN" in result["labels"]["create"], result["shots"]
        books = _books(db)
        assert [b["title"] for b in books] == ["Dune", "Ficciones"], result["shots"]
        assert books[1]["isbn"] == "978-0-8021-3030-4", result["shots"]
    finally:
        stop(server)
