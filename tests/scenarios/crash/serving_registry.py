"""An npm registry stand-in on 127.0.0.1 that serves a few tiny packages (their metadata and
tarballs), records every path it is asked for, and holds the tarballs of chosen packages until
it is released: an `npm ci` that asked for one of them certainly still runs."""

from __future__ import annotations

import base64
import contextlib
import hashlib
import io
import json
import tarfile
import threading
from collections.abc import Collection, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.scenarios.crash.held_registry import serve

HOLD_S = 600  # far beyond any test's hang guard: only a release ends a held request


@dataclass(frozen=True)
class Package:
    name: str
    version: str
    tarball: bytes

    @property
    def tarball_path(self) -> str:
        """Where the registry serves the tarball (npmjs.org's layout)."""
        return f"/{self.name}/-/{self.name}-{self.version}.tgz"

    @property
    def integrity(self) -> str:
        return "sha512-" + base64.b64encode(hashlib.sha512(self.tarball).digest()).decode()

    @property
    def shasum(self) -> str:
        return hashlib.sha1(self.tarball).hexdigest()


def make_package(name: str, version: str = "1.0.0") -> Package:
    """A package of two files, packed as `npm pack` packs it (everything under ``package/``)."""
    files = {
        "package/package.json": json.dumps({"name": name, "version": version, "main": "index.js"}),
        "package/index.js": f"module.exports = {json.dumps(name)};\n",
    }
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for path, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(path)
            info.size = len(data)
            info.mode = 0o644
            tar.addfile(info, io.BytesIO(data))
    return Package(name=name, version=version, tarball=buffer.getvalue())


class ServingRegistry:
    def __init__(self, packages: Sequence[Package], *, hold: Collection[str] = ()) -> None:
        self.packages = {p.name: p for p in packages}
        self.held_asked = threading.Event()  # a held tarball was asked for
        self.released = threading.Event()
        self._lock = threading.Lock()
        self._asked: list[str] = []
        self._served: list[str] = []
        registry = self
        tarballs = {p.tarball_path: p for p in packages}
        held = {path for path, p in tarballs.items() if p.name in hold}

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                path = self.path.split("?", 1)[0]
                with registry._lock:
                    registry._asked.append(path)
                if path in held and not registry.released.is_set():
                    registry.held_asked.set()
                    registry.released.wait(HOLD_S)
                if path in tarballs:
                    self._answer(200, tarballs[path].tarball, "application/octet-stream")
                elif (name := path.strip("/")) in registry.packages:
                    document = json.dumps(registry.metadata(registry.packages[name]))
                    self._answer(200, document.encode(), "application/json")
                else:
                    self._answer(404, b'{"error": "not found"}', "application/json")
                    return
                with registry._lock:
                    registry._served.append(path)

            def _answer(self, status: int, body: bytes, content_type: str) -> None:
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def handle(self) -> None:
                # a held request released after its npm was killed answers nobody
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    super().handle()

            def log_message(self, format: str, *args: object) -> None:
                pass  # quiet: the test's output is the command's

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/"

    def asked(self) -> list[str]:
        """Every path asked for so far, in order (a held one as soon as it is asked)."""
        with self._lock:
            return list(self._asked)

    def served(self) -> list[str]:
        """The paths answered in full so far."""
        with self._lock:
            return list(self._served)

    def tarball_url(self, package: Package) -> str:
        return self.url.rstrip("/") + package.tarball_path

    def metadata(self, package: Package) -> dict[str, Any]:
        """The package's document, as the registry's ``GET /<name>`` answers it."""
        dist = {
            "tarball": self.tarball_url(package),
            "integrity": package.integrity,
            "shasum": package.shasum,
        }
        version = {"name": package.name, "version": package.version, "dist": dist}
        return {
            "name": package.name,
            "versions": {package.version: version},
            "dist-tags": {"latest": package.version},
        }

    def lock_file(self, name: str) -> dict[str, Any]:
        """The ``package-lock.json`` (version 3) of a project ``name`` depending on every
        package served, each resolved here."""
        root = {"name": name, "version": "1.0.0", "dependencies": self._dependencies()}
        packages: dict[str, Any] = {"": root}
        for package in self.packages.values():
            packages[f"node_modules/{package.name}"] = {
                "version": package.version,
                "resolved": self.tarball_url(package),
                "integrity": package.integrity,
            }
        return {
            "name": name,
            "version": "1.0.0",
            "lockfileVersion": 3,
            "requires": True,
            "packages": packages,
        }

    def package_json(self, name: str) -> dict[str, Any]:
        return {"name": name, "version": "1.0.0", "dependencies": self._dependencies()}

    def _dependencies(self) -> dict[str, str]:
        return {p.name: p.version for p in self.packages.values()}

    @contextmanager
    def serving(self) -> Iterator[ServingRegistry]:
        with serve(self._server, self.released):
            yield self
