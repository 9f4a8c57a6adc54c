"""Configuration nodes change what the generated app uses (runtime_config), idempotently.

The inputs are files @wiforge/averos 1.4.1 generated (tests/data/averos/generated): an entity
service from the averos-service schematic and the app module `ng add` + add-language wrote.
"""

from __future__ import annotations

import difflib
import shutil
from pathlib import Path
from typing import Any

import pytest

from averos_ci.errors import InputError
from averos_ci.execute.adapters.angular import runtime_config as rc
from averos_ci.execute.adapters.angular.edits import Edit, Edited
from averos_ci.execute.adapters.angular.mapping import OPERATIONS, BuiltinEdit
from averos_ci.plan.model import Action
from tests.conftest import FIXTURES, REPO_ROOT
from tests.plan.plan_samples import applied, plan_of

GENERATED = FIXTURES / "averos" / "generated"
SERVICE_FILE = "src/app/service/book-service.service.ts"
MODULE_FILE = "src/app/app.module.ts"
LIBRARY = REPO_ROOT / "tests/scenarios/angular/data/library.manifest.yaml"
SERVICE: dict[str, Any] = {
    "type": "service",
    "name": "BookServiceConfiguration",
    "id": "BookService",
    "apiProtocol": "http",
    "apiHost": "127.0.0.1",
    "apiPort": 3999,
    "apiEndPoint": "/books",
    "apiHTTPQueryBuilder": "json-server",
}


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    (tmp_path / "src/app/service").mkdir(parents=True)
    shutil.copy(GENERATED / "book-service.service.ts", tmp_path / SERVICE_FILE)
    shutil.copy(GENERATED / "app.module.ts", tmp_path / MODULE_FILE)
    return tmp_path


def _apply(root: Path, edited: Edited) -> Edited:
    for relative, text in edited.files.items():
        (root / relative).write_text(text, encoding="utf-8")
    return edited


def _changed_lines(before: str, after: str) -> list[str]:
    return [
        line
        for line in difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=0)
        if line[:1] in "+-" and not line.startswith(("+++", "---"))
    ]


def test_service_configuration_sets_the_url_and_the_query_dialect(ws: Path) -> None:
    before = (ws / SERVICE_FILE).read_text()
    assert "public bookAPI = 'http://localhost:3333/api/books';" in before
    edited = _apply(ws, rc.service_configuration(ws, SERVICE))
    after = (ws / SERVICE_FILE).read_text()
    assert list(edited.files) == [SERVICE_FILE]
    assert "public bookAPI = 'http://127.0.0.1:3999/books';" in after
    assert "criteria.toHttpQuery('JSON-SERVER')" in after
    assert "toHttpQuery('REGULAR')" not in after
    assert edited.notes == ()
    mongo = rc.service_configuration(ws, {**SERVICE, "apiHTTPQueryBuilder": "mongodb"})
    assert "query = criteria.toHttpQuery();" in mongo.files[SERVICE_FILE]  # filter={...}


@pytest.mark.parametrize(
    "edit,args",
    [
        (rc.service_configuration, SERVICE),
        (rc.service_configuration, {**SERVICE, "apiHTTPQueryBuilder": "mongodb"}),
        (
            rc.authentication_provider,
            {
                "name": "Backend",
                "providerType": "backend",
                "config": [{"key": "authBackendUrl", "value": "https://auth.example:8443"}],
            },
        ),
    ],
)
def test_rerunning_a_configuration_node_is_a_no_op(
    ws: Path, edit: Edit, args: dict[str, Any]
) -> None:
    first = _apply(ws, edit(ws, args))
    assert first.files, "the first run changes the generated app"
    snapshot = {p: (ws / p).read_bytes() for p in (SERVICE_FILE, MODULE_FILE)}
    again = edit(ws, args)
    assert again.files == {}
    assert again.notes == first.notes
    assert {p: (ws / p).read_bytes() for p in snapshot} == snapshot


@pytest.mark.parametrize(
    "command", sorted(c for c, op in OPERATIONS.items() if isinstance(op, BuiltinEdit))
)
def test_every_configuration_command_is_idempotent_on_the_generated_app(
    ws: Path, command: str
) -> None:
    args = {
        "service-configuration": SERVICE,
        "authentication-provider": {
            "name": "P",
            "providerType": "dummy",
            "config": [{"key": "authBackendUrl", "value": "http://127.0.0.1:4000"}],
        },
        "http-auth-config": {"tokenHeader": "X-Token", "name": "HTTPAuthConfig"},
        "field-mapping": {
            "name": "BookMapping",
            "ename": "Book",
            "mapping": [{"fieldKey": "bookId", "mapTo": "_id"}],
        },
    }[command]
    op = OPERATIONS[command]
    assert isinstance(op, BuiltinEdit)
    _apply(ws, op.edit(ws, args))
    assert op.edit(ws, args).files == {}


def test_changing_a_port_is_one_update_node_that_rewrites_exactly_that_url(ws: Path) -> None:
    from ruamel.yaml import YAML

    v1 = YAML(typ="safe", pure=True).load(LIBRARY.read_text(encoding="utf-8"))
    v2 = {**v1, "serviceConfigurations": [{**v1["serviceConfigurations"][0], "apiPort": 4100}]}
    plan = plan_of(v2, applied(v1))
    changed = [n for n in plan.nodes if n.action is not Action.SKIP]
    assert [(n.id, n.action) for n in changed] == [
        ("service-config:BookServiceConfiguration", Action.UPDATE)
    ]
    node = changed[0]
    _apply(ws, rc.service_configuration(ws, {**node.args, "apiPort": 3000}))
    before = (ws / SERVICE_FILE).read_text()
    _apply(ws, OPERATIONS[node.command].edit(ws, node.args))  # type: ignore[union-attr]
    assert _changed_lines(before, (ws / SERVICE_FILE).read_text()) == [
        "- public bookAPI = 'http://127.0.0.1:3000/books';",
        "+ public bookAPI = 'http://127.0.0.1:4100/books';",
    ]


def test_auth_backend_url_becomes_the_runtime_beurl(ws: Path) -> None:
    args = {
        "name": "Backend",
        "providerType": "backend",
        "config": [
            {"key": "authBackendUrl", "value": "http://127.0.0.1:4000/"},
            {"key": "realm", "value": "r"},
        ],
    }
    before = (ws / MODULE_FILE).read_text()
    edited = _apply(ws, rc.authentication_provider(ws, args))
    assert _changed_lines(before, (ws / MODULE_FILE).read_text()) == [
        "-    AverosCoreModule.forRoot({ beURL: 'http://locahost:3000', "
        "supportedLanguages: ['en', 'fr'] }),",
        "+    AverosCoreModule.forRoot({ beURL: 'http://127.0.0.1:4000', "
        "supportedLanguages: ['en', 'fr'] }),",
    ]
    assert "realm" in edited.notes[0] and "no place" in edited.notes[0]
    without_url = rc.authentication_provider(ws, {**args, "config": []})
    assert without_url.files == {} and "authBackendUrl" in without_url.notes[0]


@pytest.mark.parametrize(
    "change,message",
    [
        ({"apiHost": "evil'; alert(1); '"}, "apiHost"),
        ({"apiProtocol": "javascript"}, "apiProtocol"),
        ({"apiEndPoint": "/books'+x+'"}, "apiEndPoint"),
    ],
)
def test_a_url_that_is_not_one_is_refused_before_any_write(
    ws: Path, change: dict[str, str], message: str
) -> None:
    before = (ws / SERVICE_FILE).read_bytes()
    with pytest.raises(InputError, match=message):
        rc.service_configuration(ws, {**SERVICE, **change})
    assert (ws / SERVICE_FILE).read_bytes() == before


def test_settings_without_a_place_in_the_runtime_are_said_not_recorded(ws: Path) -> None:
    results = [
        rc.http_auth_config(ws, {"tokenHeader": "X-Token", "withCredentials": False}),
        rc.field_mapping(
            ws, {"name": "M", "ename": "Book", "mapping": [{"fieldKey": "a", "mapTo": "_id"}]}
        ),
        rc.member_tag(ws, {"ename": "Book", "mname": "title", "memberTag": "BusinessID"}),
        rc.delete_strategy(ws, {"ename": "Shelf", "fename": "Book", "deleteStrategy": "CASCADE"}),
        rc.application_settings(ws, {"applicationName": "A", "description": "d"}),
        rc.service_configuration(ws, {**SERVICE, "id": "NoSuchService"}),
        rc.service_configuration(ws, {**SERVICE, "apiHTTPQueryBuilder": "graphql"}),
    ]
    for edited in results[:-1]:
        assert edited.files == {} and len(edited.notes) == 1
    assert "graphql" in results[-1].notes[0]
    assert not (ws / "src/assets").exists()  # no bookkeeping file presented as configuration
