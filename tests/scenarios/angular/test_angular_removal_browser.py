"""A removed entity's page is gone from the running application (issue 21 "Proof" (e)).

The library example (data/library.manifest.yaml) with a Shelf entity and its search page is
applied, then Shelf is removed from the manifest and the change applied (regenerate and
merge). The app is built and served with ``averos-ci preview``'s pieces (build, static server,
json-server with the stub login at the ports the app calls); headless Chromium
(tests/browser/drive.js) logs in — the side menu belongs to the logged-in space — reads the
side menu and follows the routes: no Shelf entry, Shelf's route renders no Shelf page (the
router sends it elsewhere), and Book's entries and pages are still there.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from averos_ci.config import load_config
from averos_ci.execute import apply
from averos_ci.preview import read_app, serve_spa
from averos_ci.preview.backend import plan_servers, run_backend
from averos_ci.preview.build import build_app
from averos_ci.preview.shots import LOGIN
from tests.scenarios.angular import browser
from tests.scenarios.angular.applied import LIBRARY, make_project
from tests.scenarios.angular.browser import drive, free_port
from tests.scenarios.angular.slot import build_in_slot

pytestmark = [pytest.mark.angular, pytest.mark.slow]

browser_tools = browser.browser_tools  # the shared fixture
SHELF_ROUTE, BOOK_ROUTES = "/shelfs/search", ("/books/create", "/books/search")


def _write_manifest(project: Path, api_port: int, *, shelf: bool) -> None:
    yaml = YAML()
    doc: Any = yaml.load(LIBRARY.read_text(encoding="utf-8"))
    [service] = doc["serviceConfigurations"]
    service["apiPort"] = api_port
    [provider] = doc["authentication"]
    provider["config"][0]["value"] = f"http://127.0.0.1:{api_port}"
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
    with (project / "library.manifest.yaml").open("w", encoding="utf-8") as f:
        yaml.dump(doc, f)


def _apply(project: Path) -> None:
    outcome = apply(load_config(project / "averos.config.json"))
    assert outcome.summary.success, outcome.summary.failures


def test_a_removed_entity_is_gone_from_the_menu_and_its_route(
    browser_tools: Path, angular_template: Path, angular_env: Path, tmp_path: Path
) -> None:
    api_port = free_port()
    project = make_project(tmp_path / "project", LIBRARY)
    _write_manifest(project, api_port, shelf=True)
    _apply(project)
    ws = project / "workspace"
    menu = json.loads((ws / "src/assets/menu/menu.default.json").read_text())
    routes = [c["route"] for entry in menu["sideMenu"] for c in entry["children"]]
    assert SHELF_ROUTE in routes and set(BOOK_ROUTES) <= set(routes)  # before: both entities
    _write_manifest(project, api_port, shelf=False)
    _apply(project)

    log = tmp_path / "build.log"
    served = build_in_slot(
        ws, angular_env, lambda copy: build_app(copy, npx="npx", cache=angular_env, log=log)
    )
    servers = plan_servers(read_app(ws), {}, auth=True)
    assert [s.port for s in servers] == [api_port]
    with (
        run_backend(servers, folder=tmp_path / "backend", tools=browser_tools, node="node") as be,
        serve_spa(served) as url,
    ):
        result = drive(
            browser_tools,
            tmp_path / "shots",
            {
                "baseUrl": url.rstrip("/"),
                "login": LOGIN,
                "menu": {"visit": [SHELF_ROUTE, *BOOK_ROUTES]},
            },
        )
        be.check()
    shots, found = result["shots"], result["menu"]
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
