"""The application node's settings reach the generated app: the login (authentication.py),
a reachable ``beURL`` and production budgets (runtime_config.application_settings).

Inputs are files @wiforge/averos 1.4.1 generated (data/: the library example's routing module,
menu and angular.json after advanced-crud; tests/data/averos/generated/app.module.ts).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from averos_ci.execute.adapters.angular import runtime_config as rc
from averos_ci.execute.adapters.angular.app_edits import authentication as auth
from averos_ci.execute.adapters.angular.app_edits import budgets
from averos_ci.execute.adapters.angular.edits import Edited
from tests.conftest import FIXTURES

DATA = Path(__file__).parent / "data"
ROUTING = "src/app/app-routing.module.ts"
MENU = "src/assets/menu/menu.default.json"
MODULE = "src/app/app.module.ts"
GUARD = "canActivate: [AuthenticationGuard]"
APP = {"applicationName": "LibraryApp", "defaultLanguageCode": "en"}


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    (tmp_path / "src/app").mkdir(parents=True)
    (tmp_path / "src/assets/menu").mkdir(parents=True)
    shutil.copy(DATA / "app-routing.module.ts", tmp_path / ROUTING)
    shutil.copy(DATA / "menu.default.json", tmp_path / MENU)
    shutil.copy(DATA / "angular.json", tmp_path / "angular.json")
    shutil.copy(FIXTURES / "averos/generated/app.module.ts", tmp_path / MODULE)
    return tmp_path


def _apply(root: Path, edited: Edited) -> Edited:
    for relative, text in edited.files.items():
        (root / relative).write_bytes(text.encode("utf-8"))
    return edited


def _entity_routes(root: Path) -> list[str]:
    text = (root / ROUTING).read_text()
    return [part for part in text.split("{ path: 'books/")[1:]]


def test_without_authentication_entity_routes_have_no_guard(ws: Path) -> None:
    assert all(GUARD in r for r in _entity_routes(ws))
    _apply(ws, rc.application_settings(ws, {**APP, "enableAuthentication": False}))
    routes = _entity_routes(ws)
    assert len(routes) == 4 and not any(GUARD in r.split("}")[0] for r in routes)
    text = (ws / ROUTING).read_text()
    assert auth.NO_LOGIN in text
    assert text.count(GUARD) == 2  # the runtime's own pages (users, user/profile) keep theirs
    menu = json.loads((ws / MENU).read_text())
    assert [g["loggedSpace"] for g in menu["sideMenu"]] == [False]
    # idempotent: a second run writes nothing
    assert rc.application_settings(ws, {**APP, "enableAuthentication": False}).files == {}


def test_routes_registered_later_lose_their_guard_too(ws: Path) -> None:
    original = (ws / ROUTING).read_text()
    assert auth.open_routes(ws, {"ename": "Book"}).files == {}  # the app has a login
    _apply(ws, rc.application_settings(ws, {**APP, "enableAuthentication": False}))
    marked = (ws / ROUTING).read_text()
    # a schematic registers a guarded route after the application node ran
    late = "{ path: 'authors/create', component: CreateAuthorComponent, " + GUARD + "},"
    (ws / ROUTING).write_text(marked.replace("{ path: '**'", late + "{ path: '**'"))
    _apply(ws, auth.open_routes(ws, {"ename": "Author"}))
    assert (
        "{ path: 'authors/create', component: CreateAuthorComponent}," in (ws / ROUTING).read_text()
    )
    assert auth.open_routes(ws, {"ename": "Author"}).files == {}
    assert original.count(GUARD) == 6


def test_authentication_back_on_gives_the_guards_back(ws: Path) -> None:
    original = (ws / ROUTING).read_text()
    menu = (ws / MENU).read_text()
    _apply(ws, rc.application_settings(ws, {**APP, "enableAuthentication": False}))
    _apply(ws, rc.application_settings(ws, {**APP, "enableAuthentication": True}))
    assert (ws / ROUTING).read_text() == original
    assert (ws / MENU).read_text() == menu


def test_authentication_on_changes_no_route(ws: Path) -> None:
    for args in (APP, {**APP, "enableAuthentication": True}):
        edited = rc.application_settings(ws, args)
        assert ROUTING not in edited.files and MENU not in edited.files


def test_the_misspelled_default_backend_becomes_localhost(ws: Path) -> None:
    assert "http://locahost:3000" in (ws / MODULE).read_text()
    _apply(ws, rc.application_settings(ws, APP))
    text = (ws / MODULE).read_text()
    assert "locahost" not in text
    assert "beURL: 'http://localhost:3000'" in text


def test_a_provider_url_is_kept(ws: Path) -> None:
    provider = {
        "name": "Local",
        "providerType": "jwt",
        "config": [{"key": "authBackendUrl", "value": "http://127.0.0.1:4000"}],
    }
    _apply(ws, rc.authentication_provider(ws, provider))
    assert rc.application_settings(ws, APP).files.get(MODULE) is None
    assert "beURL: 'http://127.0.0.1:4000'" in (ws / MODULE).read_text()


def test_production_budgets_fit_a_generated_app(ws: Path) -> None:
    _apply(ws, rc.application_settings(ws, APP))
    workspace = json.loads((ws / "angular.json").read_text())
    [project] = workspace["projects"].values()
    production = project["architect"]["build"]["configurations"]["production"]
    assert production["budgets"] == list(budgets.BUDGETS)
    assert "\n" not in (ws / "angular.json").read_text()  # kept compact, as `ng add` wrote it
    assert budgets.production_budgets(ws) == {}
