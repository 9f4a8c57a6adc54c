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

import functools
import http.server
import json
import os
import shutil
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from averos_ci.config import load_config
from averos_ci.execute import apply
from tests.browser.tools import HERE as BROWSER_DIR
from tests.browser.tools import ensure_tools
from tests.conftest import unavailable

pytestmark = [pytest.mark.angular, pytest.mark.slow]

DATA = Path(__file__).parent / "data"
CHROMIUM = os.environ.get("AVEROS_CI_CHROMIUM", "/usr/bin/chromium")
BOOK = {"Name": "dune", "Title": "Dune", "Author": "Frank Herbert", "Pages": "412"}


@pytest.fixture(scope="module")
def browser_tools(angular_template: Path, angular_cache_dir: Path) -> Path:
    missing = [t for t in ("node", "npm") if shutil.which(t) is None]
    if not Path(CHROMIUM).is_file():
        missing.append(CHROMIUM)
    if missing:
        message = f"the browser test needs {', '.join(missing)} (.ci/run installs them)"
        unavailable(message)
    return ensure_tools(angular_cache_dir)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_port(port: int, proc: subprocess.Popen[str], log: Path) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"json-server exited ({proc.returncode}):\n{log.read_text()}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    pytest.fail(f"json-server did not listen on {port}:\n{log.read_text()}")


class _SpaHandler(http.server.SimpleHTTPRequestHandler):
    """The built app; unknown paths get index.html (Angular routes are client-side)."""

    def send_head(self) -> Any:
        if not Path(self.translate_path(self.path.split("?")[0])).exists():
            self.path = "/index.html"
        return super().send_head()

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def spa(tmp_path: Path) -> Iterator[tuple[Path, str]]:
    """(directory served, its URL); the directory is filled by the build."""
    root = tmp_path / "served"
    root.mkdir()
    handler = functools.partial(_SpaHandler, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield root, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


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
    proc = subprocess.run(
        ["npx", "ng", "build", "--configuration", "development"],
        cwd=ws,
        env={**os.environ, "NG_CLI_ANALYTICS": "false", "npm_config_cache": str(cache / "npm")},
        capture_output=True,
        text=True,
        timeout=1200,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    [dist] = [p for p in (ws / "dist").iterdir() if (p / "index.html").is_file()]
    shutil.rmtree(served)
    shutil.copytree(dist, served)


def _drive(tools: Path, shots: Path, scenario: dict[str, Any]) -> dict[str, Any]:
    shots.mkdir(parents=True, exist_ok=True)
    spec = shots / "scenario.json"
    spec.write_text(json.dumps({"shots": str(shots), "chromium": CHROMIUM, **scenario}))
    proc = subprocess.run(
        ["node", str(BROWSER_DIR / "drive.js"), str(spec)],
        env={
            **os.environ,
            "NODE_PATH": str(tools / "node_modules"),
            # Chromium keeps a crash/cache dir under $HOME whatever --user-data-dir says
            "HOME": str(shots),
            "XDG_CONFIG_HOME": str(shots / ".config"),
            "XDG_CACHE_HOME": str(shots / ".cache"),
        },
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    try:
        result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    except (IndexError, ValueError):
        pytest.fail(f"drive.js printed no result ({proc.returncode}):\n{proc.stdout}{proc.stderr}")
    assert result["ok"], (
        f"{result.get('error')}\nat {result.get('url')}\nscreenshots: {result.get('shots')}"
    )
    return result


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
    api_port = _free_port()
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
    with log.open("w") as out:
        server = subprocess.Popen(
            [
                str(browser_tools / "node_modules" / ".bin" / "json-server"),
                str(db),
                "--host",
                "127.0.0.1",
                "--port",
                str(api_port),
                "--middlewares",
                str(BROWSER_DIR / "login.js"),
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
            text=True,
        )
    try:
        _wait_port(api_port, server, log)
        fields = [{"label": k, "value": v} for k, v in BOOK.items()]
        result = _drive(
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
        result = _drive(
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
        server.terminate()
        server.wait(timeout=30)
