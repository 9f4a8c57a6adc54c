"""The ToDo example (``enableAuthentication: false``) works in a browser without a login.

Takes examples/todoapp/todoapp.manifest.yaml generated from a config of its own (the real
schematics, its service ports moved to a free one) and built with ``averos-ci preview``'s build,
once per session (tests/scenarios/angular/built.py; test_angular_todoapp.py's compile proof
shares the build), then reuses preview's other pieces: the static server, and json-server at
the URLs the generated services call.
Headless Chromium (tests/browser/drive.js) loads ``/todotasks/create`` with no login (and is
not sent to ``/login``), creates a task there, and finds it on the search page; no request
of the page goes to ``locahost`` (the host Averos's ``ng add`` misspells).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from averos_ci.preview import read_app, serve_spa
from averos_ci.preview.backend import plan_servers, run_backend
from tests.scenarios.angular import browser, built
from tests.scenarios.angular.browser import drive

pytestmark = [pytest.mark.angular, pytest.mark.slow]

browser_tools = browser.browser_tools  # the shared fixture
todo_build = built.todo_build  # the example's build, shared with test_angular_todoapp.py
GUARD = "canActivate: [AuthenticationGuard]"


@pytest.mark.xdist_group(built.TODO_GROUP)
def test_todo_example_opens_without_login_and_saves_a_task(
    browser_tools: Path, todo_build: built.Built, tmp_path: Path
) -> None:
    api_port, ws, served = todo_build.api_port, todo_build.workspace, todo_build.served

    routing = (ws / "src/app/app-routing.module.ts").read_text(encoding="utf-8")
    assert "{ path: 'todotasks/create', component: CreateToDoTaskComponent}" in routing
    assert routing.count(GUARD) == 2  # only the runtime's users and profile pages
    module = (ws / "src/app/app.module.ts").read_text(encoding="utf-8")
    assert "locahost" not in module and "beURL: 'http://localhost:3000'" in module
    app = read_app(ws)
    assert app.pages and not app.guarded

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
