"""An npm registry stand-in on 127.0.0.1 that answers `npm ping` and holds every other request
open until it is released: an `npm ci` that asked it for a package certainly still runs (it
cannot finish without an answer), so a signal sent then lands during the command."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

HOLD_S = 600  # far beyond any test's hang guard: only a release ends a held request


class HeldRegistry:
    def __init__(self) -> None:
        self.asked = threading.Event()  # a package (its metadata or tarball) was asked for
        self.released = threading.Event()
        registry = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                if self.path.startswith("/-/ping"):
                    self._answer(200, b"{}")
                    return
                registry.asked.set()
                registry.released.wait(HOLD_S)
                self._answer(503, b'{"error": "held by the test"}')

            def _answer(self, status: int, body: bytes) -> None:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: object) -> None:
                pass  # quiet: the test's output is the command's

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/"

    @contextmanager
    def serving(self) -> Iterator[HeldRegistry]:
        with serve(self._server, self.released):
            yield self


@contextmanager
def serve(server: ThreadingHTTPServer, released: threading.Event) -> Iterator[None]:
    """``server`` answers in a thread while the block runs; then its held requests are
    released and it stops."""
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield
    finally:
        released.set()
        server.shutdown()
        server.server_close()
        thread.join()
