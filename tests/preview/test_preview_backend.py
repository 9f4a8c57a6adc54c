"""The mock backend as the generated app calls it: a real json-server at the service's path,
MongoDB-style ``?filter=`` searches translated, the stub login answering (needs Node)."""

from __future__ import annotations

import json
import shutil
import socket
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

from averos_ci.preview.backend import MockServer, run_backend
from averos_ci.preview.tools import ensure_tools
from tests.conftest import unavailable

TASKS = [{"id": 1, "name": "Dune", "n": 5}, {"id": 2, "name": "Emma", "n": 9}]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=30) as r:
        return json.load(r)


def test_json_server_answers_at_the_services_paths(angular_cache_dir: Path, tmp_path: Path) -> None:
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        unavailable("the mock backend needs node and npm on PATH")
    tools = ensure_tools(angular_cache_dir, npm=npm)
    port = _free_port()
    server = MockServer(
        port, collections={"todotasks": TASKS}, routes={"/api/todotasks*": "/todotasks$1"}
    )
    server.auth = True
    with run_backend([server], folder=tmp_path / "be", tools=tools, node=node):
        base = f"http://127.0.0.1:{port}/api/todotasks"

        def ids(query: str) -> list[int]:
            return [t["id"] for t in _get(base + query)]

        assert ids("") == [1, 2]
        assert _get(f"{base}/2")["name"] == "Emma"
        mongo = {"{}": [1, 2], '{"name":{"$regex":"Du"}}': [1], '{"n":{"$gte":6}}': [2]}
        for query, expected in mongo.items():
            assert ids("?filter=" + urllib.parse.quote(query)) == expected, query
        assert ids("?name_like=Em") == [2]  # apiHTTPQueryBuilder: json-server
        login = urllib.request.Request(
            f"http://127.0.0.1:{port}/auth/login",
            data=b'{"userName": "ada", "password": "whatever-it-is"}',
            headers={"content-type": "application/json"},
        )
        with urllib.request.urlopen(login, timeout=30) as r:
            assert json.load(r)["auth_token"]["userName"] == "ada"
    assert json.loads((tmp_path / "be" / f"db-{port}.json").read_text()) == {"todotasks": TASKS}
    with socket.socket() as s:  # stopped with the block
        assert s.connect_ex(("127.0.0.1", port)) != 0
