"""Serve a built single-page application: files as they are, any other path gets index.html
(Angular routes are resolved in the browser). Loopback only; a thread of this process."""

from __future__ import annotations

import functools
import http.server
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from averos_ci.errors import InputError


class SpaHandler(http.server.SimpleHTTPRequestHandler):
    """The built app; unknown paths get index.html."""

    def send_head(self) -> Any:
        if not Path(self.translate_path(self.path.split("?")[0])).exists():
            self.path = "/index.html"
        return super().send_head()

    def log_message(self, format: str, *args: Any) -> None:
        pass  # a page load is dozens of requests: keep the console for what matters


@contextmanager
def serve_spa(root: Path, *, port: int = 0, host: str = "127.0.0.1") -> Iterator[str]:
    """Serve ``root`` at the yielded URL (``port=0``: any free port) until the block ends."""
    handler = functools.partial(SpaHandler, directory=str(root))
    try:
        server = http.server.ThreadingHTTPServer((host, port), handler)
    except OSError as exc:
        raise InputError(
            f"cannot serve the app on {host}:{port}: {exc.strerror}",
            hint="choose another port with --port (0: any free port)",
        ) from None
    thread = threading.Thread(target=server.serve_forever, name="preview-spa", daemon=True)
    thread.start()
    try:
        yield f"http://{host}:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
