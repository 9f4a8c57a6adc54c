"""The generated application works in a real browser, against the backend its manifest names.

Generates the library app (data/library.manifest.yaml, plus a Shelf entity with its service
and search page) with the real schematics, builds it, serves the build, starts a real
json-server at the manifest's apiHost/apiPort (which also answers the runtime's /auth/login at
the provider's authBackendUrl) and drives headless Chromium through playwright-core
(tests/browser/drive.js): the create page saves a record that json-server holds as typed, the
search page lists it, the language switch shows the manifest's French label. Then one
incremental apply adds a member to Book and removes Shelf (issue 21 "Proof" (e), regenerate and
merge): the new field is in the form and saved, and the side menu of the logged-in space has no
Shelf entry, Shelf's route renders no Shelf page (the router sends it elsewhere), and Book's
entries and pages are still there.
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
from averos_ci.planning import apply
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
SHELF_ROUTE, BOOK_ROUTES = "/shelfs/search", ("/books/create", "/books/search")


@pytest.fixture
def spa(tmp_path: Path) -> Iterator[tuple[Path, str]]:
    """(directory served, its URL); the directory is filled by the build."""
    root = tmp_path / "served"
    root.mkdir()
    with serve_spa(root) as url:
        yield root, url.rstrip("/")


def _write_manifest(source: Path, dest: Path, api_port: int, *, shelf: bool) -> None:
    yaml = YAML()
    doc: Any = yaml.load(source.read_text(encoding="utf-8"))
    [service] = doc["serviceConfigurations"]
    service["apiPort"] = api_port
    for entry in doc["authentication"][0]["config"]:
        if entry["key"] == "authBackendUrl":
            entry["value"] = f"http://127.0.0.1:{api_port}"
    if shelf:
        label = {"memberNature": "simple", "ename": "Shelf", "mname": "label"}
        doc["entities"].append(
            {
                "name": "Shelf",
                "sname": "ShelfService",
                "members": [{**label, "memberType": "string"}],
            }
        )
        doc["serviceConfigurations"].append(
            {
                **service,
                "name": "ShelfServiceConfiguration",
                "id": "ShelfService",
                "apiEndPoint": "/shelves",
            }
        )
        doc["useCases"].append(
            {"name": "SearchShelf", "ename": "Shelf", "useCaseType": "Search_Entity"}
        )
    with dest.open("w", encoding="utf-8") as f:
        yaml.dump(doc, f)


def _apply(project: Path, manifest: Path, api_port: int, *, shelf: bool) -> None:
    _write_manifest(manifest, project / "library.manifest.yaml", api_port, shelf=shelf)
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
    _apply(project, DATA / "library.manifest.yaml", api_port, shelf=True)
    ws = project / "workspace"
    service = (ws / "src/app/service/book-service.service.ts").read_text()
    assert f"public bookAPI = 'http://127.0.0.1:{api_port}/books';" in service
    # defaultAuthenticationProvider: the login (beURL) is that provider's backend
    module = (ws / "src/app/app.module.ts").read_text()
    assert "// averos-ci: defaultAuthenticationProvider backend" in module
    assert f"beURL: 'http://127.0.0.1:{api_port}'" in module
    menu = json.loads((ws / "src/assets/menu/menu.default.json").read_text())
    routes = [c["route"] for entry in menu["sideMenu"] for c in entry["children"]]
    assert SHELF_ROUTE in routes and set(BOOK_ROUTES) <= set(routes)  # before: both entities
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

        # incremental apply: Book gains `isbn` and Shelf is removed (regenerate and merge)
        _apply(project, DATA / "library.v2.manifest.yaml", api_port, shelf=False)
        assert "isbn!: string;" in (ws / "src/app/model/book.ts").read_text()
        assert not (ws / "src/app/model/shelf.ts").exists()
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
                "menu": {"visit": [SHELF_ROUTE, *BOOK_ROUTES]},
            },
        )
        shots = result["shots"]
        assert "ISBN" in result["labels"]["create"], shots
        books = _books(db)
        assert [b["title"] for b in books] == ["Dune", "Ficciones"], shots
        assert books[1]["isbn"] == "978-0-8021-3030-4", shots
        _assert_shelf_gone(result["menu"], shots)
    finally:
        stop(server)


def _assert_shelf_gone(found: dict[str, Any], shots: Any) -> None:
    """The side menu and the routes after Shelf's removal: Book stays, Shelf is gone."""
    assert any("book" in e.lower() for e in found["entries"]), (found, shots)  # Book stays
    assert not [e for e in found["entries"] if "shelf" in e.lower()], (found, shots)
    assert set(BOOK_ROUTES) <= set(found["links"]), (found, shots)
    assert not [link for link in found["links"] if "shelf" in link.lower()], (found, shots)
    shelf = found["routes"][SHELF_ROUTE]
    assert shelf["path"] != SHELF_ROUTE, (shelf, shots)  # '**' sends it elsewhere
    assert not [tag for tag in shelf["rendered"] if "shelf" in tag], (shelf, shots)
    for route, page in zip(BOOK_ROUTES, ("app-create-book", "app-search-book"), strict=True):
        assert found["routes"][route]["path"] == route, (found, shots)
        rendered = found["routes"][route]["rendered"]
        assert any(tag.startswith(page) for tag in rendered), (found, shots)
