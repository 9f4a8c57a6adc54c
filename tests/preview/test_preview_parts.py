"""The pieces of ``preview`` that need no Angular: reading what a generated app calls, planning
the mock servers, serving a built app, and the command's errors (exit 2, no traceback)."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path

import pytest

from averos_ci.cli import run_cli
from averos_ci.preview import read_app, serve_spa
from averos_ci.preview.backend import foreign_hosts, plan_servers

SERVICE = """
@Injectable({{ providedIn: 'root' }})
export class {name}ServiceService {{
 public {camel}API = '{url}';
}}
"""
ROUTES = """
const routes: Routes = [
  { path: 'login', component: LoginComponent },
  { path: 'todotasks/create', component: CreateToDoTaskComponent, GUARD},
  { path: 'todotasks/search', component: SearchToDoTaskComponent, GUARD},
  { path: 'todotasks/view/:id', component: ToDoTaskDetailsComponent, GUARD},
  { path: 'todoareas/create', component: CreateToDoAreaComponent},
];
""".replace("GUARD", "canActivate: [AuthenticationGuard]")


def _fake_app(ws: Path) -> Path:
    """The files preview reads, as the Averos 1.4.1 schematics write them."""
    app = ws / "src" / "app"
    (app / "service").mkdir(parents=True)
    (app / "app.module.ts").write_text(
        "AverosCoreModule.forRoot({ beURL: 'http://locahost:3000', supportedLanguages: ['en'] }),"
    )
    (app / "app-routing.module.ts").write_text(ROUTES)
    for name, url in (
        ("ToDoTask", "http://127.0.0.1:3333/api/todotasks"),
        ("ToDoArea", "http://127.0.0.1:3333/api/todoareas"),
    ):
        camel = name[0].lower() + name[1:]
        text = SERVICE.format(name=name, camel=camel, url=url)
        (app / "service" / f"{camel}-service.service.ts").write_text(text)
    return ws


def test_the_app_is_read_from_its_generated_source(tmp_path: Path) -> None:
    app = read_app(_fake_app(tmp_path / "ws"))
    assert sorted((e.entity, e.port, e.path) for e in app.endpoints) == [
        ("toDoArea", 3333, "/api/todoareas"),
        ("toDoTask", 3333, "/api/todotasks"),
    ]
    assert app.be_url == "http://locahost:3000"
    assert [(p.name, p.path, p.guarded) for p in app.pages] == [
        ("todoarea-create", "/todoareas/create", False),
        ("todotask-create", "/todotasks/create", True),
        ("todotask-search", "/todotasks/search", True),
    ]
    assert app.guarded


def test_one_server_per_port_at_the_paths_the_services_call(tmp_path: Path) -> None:
    app = read_app(_fake_app(tmp_path / "ws"))
    records = {"ToDoTask": [{"id": 1}], "ToDoArea": [{"id": "a"}]}
    auth, api = plan_servers(app, records, auth=True)  # sorted by port
    assert (api.port, auth.port) == (3333, 3000)
    assert api.collections == {"todotasks": [{"id": 1}], "todoareas": [{"id": "a"}]}
    assert api.routes == {"/api/todotasks*": "/todotasks$1", "/api/todoareas*": "/todoareas$1"}
    assert not api.auth and auth.auth and auth.collections == {}
    assert auth.urls == ["http://locahost:3000/auth/login"]
    assert foreign_hosts(app, auth=True) == ["locahost"]
    assert [s.port for s in plan_servers(app, records, auth=False)] == [3333]
    assert foreign_hosts(app, auth=False) == []


def test_the_built_app_is_served_with_index_html_for_client_routes(tmp_path: Path) -> None:
    (tmp_path / "index.html").write_text("<app-root></app-root>")
    (tmp_path / "main.js").write_text("console.log(1)")
    with serve_spa(tmp_path, port=0) as url:
        assert url.startswith("http://127.0.0.1:") and url.endswith("/")
        with urllib.request.urlopen(f"{url}books/create?x=1") as r:
            assert r.read() == b"<app-root></app-root>"
        with urllib.request.urlopen(f"{url}main.js") as r:
            assert r.read() == b"console.log(1)"


def _project(tmp_path: Path, *, app: bool) -> Path:
    manifest = Path(__file__).parent / "data" / "shop.manifest.yaml"
    (tmp_path / "shop.manifest.yaml").write_bytes(manifest.read_bytes())
    config = {"workspaceRoot": "ws", "manifestPath": "shop.manifest.yaml"}
    (tmp_path / "averos.config.json").write_text(json.dumps(config))
    (tmp_path / "ws").mkdir()
    if app:
        _fake_app(tmp_path / "ws")
    return tmp_path / "averos.config.json"


def test_no_generated_app_is_exit_2_with_a_hint(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _project(tmp_path, app=False)
    assert run_cli(["preview", "--config", str(config)]) == 2
    err = capsys.readouterr().err
    assert "holds no generated application" in err and "hint: generate it first" in err
    assert "Traceback" not in err


def test_missing_chromium_is_exit_2_naming_what_to_install(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    config = _project(tmp_path, app=True)
    missing = tmp_path / "no-such-chromium"
    monkeypatch.delenv("AVEROS_CI_CHROMIUM", raising=False)
    argv = ["preview", "--config", str(config), "--screenshot", str(tmp_path / "shots")]
    assert run_cli([*argv, "--chromium", str(missing)]) == 2
    err = capsys.readouterr().err
    assert f"Chromium not found at {missing}" in err
    assert "apt-get install chromium" in err and "Traceback" not in err
    monkeypatch.setenv("AVEROS_CI_CHROMIUM", str(missing))
    assert run_cli(argv) == 2
    assert "apt-get install chromium" in capsys.readouterr().err
    assert not (tmp_path / "shots").exists()


def test_the_public_api_is_what_all_lists() -> None:
    import averos_ci.preview as preview

    assert set(preview.__all__) == {
        "DEFAULT_PORT",
        "GeneratedApp",
        "Page",
        "PreviewResult",
        "ensure_tools",
        "find_chromium",
        "preview",
        "read_app",
        "sample_records",
        "serve_spa",
    }
    for name in preview.__all__:
        assert getattr(preview, name) is not None
