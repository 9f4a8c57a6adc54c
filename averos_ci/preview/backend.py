"""The mock backend: one json-server process per port the generated app calls.

Each server holds the sample records of the entities whose service calls its port, at the
paths the services call (a routes file maps ``/api/books`` to json-server's ``/books``), and
answers the runtime's ``/auth/...`` calls (auth.js) where the app's ``beURL`` points. It always
listens on 127.0.0.1: an app that calls another host name reaches it only through a browser
that maps that name (the screenshots do; see :func:`foreign_hosts`).
"""

from __future__ import annotations

import json
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from averos_ci._fs import atomic_write_text
from averos_ci.errors import InputError
from averos_ci.execute.adapters._children import HeldSignals
from averos_ci.preview.app import Endpoint, GeneratedApp
from averos_ci.preview.errors import PreviewFailed
from averos_ci.preview.procs import start, stop, wait_port

AUTH_JS = Path(__file__).resolve().parent / "auth.js"
QUERY_JS = Path(__file__).resolve().parent / "query.js"  # MongoDB-style ?filter= searches
LOCAL_HOSTS = frozenset({"127.0.0.1", "localhost", "::1", "[::1]"})


@dataclass
class MockServer:
    port: int
    collections: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    routes: dict[str, str] = field(default_factory=dict)
    urls: list[str] = field(default_factory=list)  # what the app calls here
    auth: bool = False


def _resource(path: str, taken: dict[str, Any]) -> str:
    base = "".join(c if c.isalnum() else "_" for c in path.rstrip("/").rsplit("/", 1)[-1])
    name, n = base or "items", 2
    while name in taken:
        name, n = f"{base}_{n}", n + 1
    return name


def plan_servers(
    app: GeneratedApp, records: dict[str, list[dict[str, Any]]], *, auth: bool
) -> list[MockServer]:
    """The servers to start: one per port, seeded with ``records`` (``{entity: records}``)."""
    by_entity = {name.lower(): rows for name, rows in records.items()}
    servers: dict[int, MockServer] = {}
    for endpoint in app.endpoints:
        server = servers.setdefault(endpoint.port, MockServer(endpoint.port))
        name = _resource(endpoint.path, server.collections)
        server.collections[name] = by_entity.get(endpoint.entity.lower(), [])
        server.urls.append(endpoint.url)
        if endpoint.path != f"/{name}":
            server.routes[f"{endpoint.path}*"] = f"/{name}$1"
    if auth and app.be_url:
        be = Endpoint(entity="", url=app.be_url)
        server = servers.setdefault(be.port, MockServer(be.port))
        server.auth = True
        server.urls.append(f"{app.be_url.rstrip('/')}/auth/login")
    return [servers[p] for p in sorted(servers)]


def foreign_hosts(app: GeneratedApp, *, auth: bool) -> list[str]:
    """Host names the app calls that are not this machine's loopback (e.g. Averos 1.4.1's
    ``locahost`` default): the mock backend is reachable there only through a host mapping."""
    urls = [e.url for e in app.endpoints] + ([app.be_url] if auth and app.be_url else [])
    hosts = {urlsplit(u).hostname or "" for u in urls}
    return sorted(h for h in hosts if h and h not in LOCAL_HOSTS)


def _port_free(port: int) -> bool:
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


@dataclass(frozen=True)
class RunningBackend:
    servers: list[MockServer]
    procs: list[subprocess.Popen[bytes]]
    folder: Path

    def check(self) -> None:
        """PreviewFailed if a server has exited (they run until preview stops them)."""
        for server, proc in zip(self.servers, self.procs, strict=True):
            if proc.poll() is not None:
                log = self.folder / f"json-server-{server.port}.log"
                raise PreviewFailed(
                    f"json-server on port {server.port} exited ({proc.returncode})",
                    path=log,
                    hint=f"its output is in {log}",
                )


@contextmanager
def run_backend(
    servers: list[MockServer], *, folder: Path, tools: Path, node: str
) -> Iterator[RunningBackend]:
    """Start every server (fresh seed files in ``folder``); stop them all on exit."""
    for server in servers:
        if not _port_free(server.port):
            raise InputError(
                f"port {server.port} is in use, and the generated app calls its backend there "
                f"({', '.join(server.urls)})",
                hint="stop what listens on that port, or change apiPort (and authBackendUrl) "
                "in the manifest and apply it",
            )
    folder.mkdir(parents=True, exist_ok=True)
    cli = tools / "node_modules" / "json-server" / "lib" / "cli" / "bin.js"
    procs: list[subprocess.Popen[bytes]] = []
    try:
        for server in servers:
            db = folder / f"db-{server.port}.json"
            atomic_write_text(db, json.dumps(server.collections, indent=2) + "\n")
            cmd = [node, str(cli), str(db), "--host", "127.0.0.1", "--port", str(server.port)]
            if server.routes:
                routes = folder / f"routes-{server.port}.json"
                atomic_write_text(routes, json.dumps(server.routes, indent=2) + "\n")
                cmd += ["--routes", str(routes)]
            cmd += ["--middlewares", str(QUERY_JS), *([str(AUTH_JS)] if server.auth else [])]
            log = folder / f"json-server-{server.port}.log"
            held = HeldSignals()  # a Ctrl-C as it starts: its pid is in procs, then it acts
            try:
                procs.append(start(cmd, cwd=folder, log=log))
            finally:
                held.release()
        deadline = time.monotonic() + 60
        for server, proc in zip(servers, procs, strict=True):
            log = folder / f"json-server-{server.port}.log"
            if not wait_port(server.port, proc, deadline=deadline):
                raise PreviewFailed(
                    f"json-server did not start on port {server.port}",
                    path=log,
                    hint=f"its output is in {log}",
                )
        yield RunningBackend(servers, procs, folder)
    finally:
        for proc in procs:
            stop(proc)
