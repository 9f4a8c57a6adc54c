"""A git smart-HTTP server on 127.0.0.1 (``git http-backend`` as CGI) that demands the token
as GitHub does (basic auth, user ``x-access-token``) and answers each request slowly, so
that an attacker's scan can catch the git processes of a state-branch fetch or push."""

from __future__ import annotations

import base64
import os
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit


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

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:  # quiet
            return

        def do_GET(self) -> None:
            self._cgi()

        def do_POST(self) -> None:
            self._cgi()

        def _body(self) -> bytes:
            if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
                out = b""
                while True:
                    size = int(self.rfile.readline().strip(), 16)
                    if size == 0:
                        self.rfile.readline()
                        return out
                    out += self.rfile.read(size)
                    self.rfile.readline()
            return self.rfile.read(int(self.headers.get("Content-Length") or 0))

        def _cgi(self) -> None:
            body = self._body()
            scheme, _, credentials = (self.headers.get("Authorization") or "").partition(" ")
            if scheme.lower() != "basic" or credentials.strip() != expected:
                with server_state.lock:
                    server_state.refused += 1
                self.send_response(401)
                self.send_header("WWW-Authenticate", 'Basic realm="fake github"')
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            with server_state.lock:
                server_state.authorized += 1
            time.sleep(server_state.delay)  # slow: the attacker's scan runs meanwhile
            url = urlsplit(self.path)
            env = {
                "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
                "GIT_PROJECT_ROOT": str(server_state.root),
                "GIT_HTTP_EXPORT_ALL": "1",
                "REMOTE_USER": "x-access-token",
                "REQUEST_METHOD": self.command,
                "PATH_INFO": url.path,
                "QUERY_STRING": url.query,
                "CONTENT_TYPE": self.headers.get("Content-Type", ""),
                "CONTENT_LENGTH": str(len(body)),
                "HTTP_CONTENT_ENCODING": self.headers.get("Content-Encoding", ""),
                "GIT_PROTOCOL": self.headers.get("Git-Protocol", ""),
            }
            proc = subprocess.run(
                ["git", "http-backend"], input=body, env=env, capture_output=True, check=False
            )
            head, _, payload = proc.stdout.partition(b"\r\n\r\n")
            status, headers = 200, []
            for line in head.decode("latin1").split("\r\n"):
                name, _, value = line.partition(":")
                if name.lower() == "status":
                    status = int(value.strip().split()[0])
                elif name:
                    headers.append((name, value.strip()))
            self.send_response(status)
            for name, value in headers:
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

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
