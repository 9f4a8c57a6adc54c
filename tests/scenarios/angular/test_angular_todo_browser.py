"""The ToDo example (``enableAuthentication: false``) works in a browser without a login.

Generates examples/todoapp/todoapp.manifest.yaml from a config of its own (the real schematics,
its service ports moved to a free one), then reuses ``averos-ci preview``'s pieces: the
development build, the static server, and json-server at the URLs the generated services call.
Headless Chromium (tests/browser/drive.js) loads ``/todotasks/create`` with no login (and is
not sent to ``/login``), creates a task there, and finds it on the search page; no request
of the page goes to ``locahost`` (the host Averos's ``ng add`` misspells).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from averos_ci.config import load_config
from averos_ci.execute import apply
from averos_ci.preview import read_app, serve_spa
from averos_ci.preview.backend import plan_servers, run_backend
from averos_ci.preview.build import build_app
from tests.conftest import REPO_ROOT
from tests.scenarios.angular import browser
from tests.scenarios.angular.browser import drive, free_port

pytestmark = [pytest.mark.angular, pytest.mark.slow]

EXAMPLE = REPO_ROOT / "examples" / "todoapp" / "todoapp.manifest.yaml"
browser_tools = browser.browser_tools  # the shared fixture
GUARD = "canActivate: [AuthenticationGuard]"


def _project(tmp_path: Path, api_port: int) -> Path:
    project = tmp_path / "project"
    project.mkdir()
    yaml = YAML()
    doc = yaml.load(EXAMPLE.read_text(encoding="utf-8"))
    assert doc["enableAuthentication"] is False
    for service in doc["serviceConfigurations"]:
        service["apiPort"] = api_port
    with (project / "todoapp.manifest.yaml").open("w", encoding="utf-8") as f:
        yaml.dump(doc, f)
    config = {
        "mode": "strict",
        "workspaceRoot": "workspace",
        "manifestPath": "todoapp.manifest.yaml",
        "logsDir": ".averos/logs",
        "statePath": ".averos/state.json",
        "checkpointPath": ".averos/checkpoints.json",
        "adapter": "angular-schematics",
        "adapterOptions": {"templateCache": True},
    }
    (project / "averos.config.json").write_text(json.dumps(config), encoding="utf-8")
    return project


def test_todo_example_opens_without_login_and_saves_a_task(
    browser_tools: Path, angular_env: Path, tmp_path: Path
) -> None:
    api_port = free_port()
    project = _project(tmp_path, api_port)
    outcome = apply(load_config(project / "averos.config.json"))
    assert outcome.summary.success, outcome.summary.failures
    ws = project / "workspace"

    routing = (ws / "src/app/app-routing.module.ts").read_text(encoding="utf-8")
    assert "{ path: 'todotasks/create', component: CreateToDoTaskComponent}" in routing
    assert routing.count(GUARD) == 2  # only the runtime's users and profile pages
    module = (ws / "src/app/app.module.ts").read_text(encoding="utf-8")
    assert "locahost" not in module and "beURL: 'http://localhost:3000'" in module
    app = read_app(ws)
    assert app.pages and not app.guarded

    served = build_app(ws, npx="npx", cache=angular_env, log=tmp_path / "build.log")
    servers = plan_servers(app, {}, auth=False)
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
                "open": {"path": "/todotasks/create"},
                "create": {
                    "path": "/todotasks/create",
                    "fields": [
                        {"label": "Name", "value": "water the plants"},
                        {"label": "Task Id", "value": "task-1"},
                        {"label": "Description", "value": "twice a week"},
                        {"label": "Status", "option": "Active"},
                    ],
                },
                "search": {"path": "/todotasks/search", "expect": "water the plants"},
            },
        )
        be.check()
        shots = result["shots"]
        assert result["openedUrl"].endswith("/todotasks/create"), shots  # no /login redirect
        assert result["saveUrl"] == f"http://127.0.0.1:{api_port}/api/todotasks", shots
        db = json.loads((be.folder / f"db-{api_port}.json").read_text(encoding="utf-8"))
        [task] = db["todotasks"]
        assert task["name"] == "water the plants" and task["status"] in ("ACTIVE", "Active"), shots
        assert result["searchUrl"].startswith(f"http://127.0.0.1:{api_port}/api/todotasks")
        assert result["requests"] and not [r for r in result["requests"] if "locahost" in r]
