"""A git smart-HTTP server on 127.0.0.1 (``git http-backend`` as CGI) that demands the token
as GitHub does (basic auth, user ``x-access-token``) and answers each request slowly, so
that an attacker's scan can catch the git processes of a state-branch fetch or push."""

from __future__ import annotations

import base64
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

from tests.git_http_backend import GitBackendHandler


@dataclass
class GitHttp:
    root: Path  # the folder holding the bare repositories
    token: str
    delay: float = 0.5
    authorized: int = 0
    refused: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)


def _handler(server_state: GitHttp) -> type[BaseHTTPRequestHandler]:
    expected = base64.b64encode(f"x-access-token:{server_state.token}".encode()).decode()

    class Handler(GitBackendHandler):
        def serve_git(self) -> None:
            body = self.request_body()
            scheme, _, credentials = (self.headers.get("Authorization") or "").partition(" ")
            if scheme.lower() != "basic" or credentials.strip() != expected:
                with server_state.lock:
                    server_state.refused += 1
                self.refuse(401, "fake github")
                return
            with server_state.lock:
                server_state.authorized += 1
            time.sleep(server_state.delay)  # slow: the attacker's scan runs meanwhile
            self.relay(
                body,
                project_root=server_state.root,
                path_info=urlsplit(self.path).path,
                remote_user="x-access-token",
            )

    return Handler


@contextmanager
def serve(root: Path, token: str, *, delay: float = 0.5) -> Iterator[tuple[str, GitHttp]]:
    """``(server_url, state)`` while the server runs."""
    state = GitHttp(root, token, delay)
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", state
    finally:
        httpd.shutdown()
        httpd.server_close()
