"""A protected default branch, as GitHub enforces it, around the test world of
:mod:`tests.github.gh_world`.

- The origin is served over git's smart HTTP (``git http-backend`` as CGI behind a small
  server on 127.0.0.1, port 0). Each request must carry a token in basic auth, as GitHub's
  git endpoint demands; the token names the identity that pushes (``REMOTE_USER``):
  ``GITHUB_TOKEN`` → ``github-actions[bot]``, the App's installation token →
  ``averos-apply[bot]``. Jobs' checkouts point ``origin`` at that server
  (``persist-credentials: false``: no credential is left in them) and the jobs run with
  ``GITHUB_SERVER_URL`` set to it, so averos-ci hands its tokens to git as on GitHub.
- The default branch's ruleset is a ``pre-receive`` hook: an update of ``refs/heads/main``
  over HTTP is refused (``GH013``) unless its identity is in the bypass list
  (``bypass-actors`` in the bare repository; the App when ``app_bypasses``). Pushes over the
  local path are the forge's own: the merge button (:meth:`ProtectedWorld.merge_pr`) and
  people pushing their feature branches.
- Workflows: a push by a person or by the App triggers the ``push`` workflow unless its head
  commit says ``[skip ci]``; a push made with ``GITHUB_TOKEN`` triggers none
  (:meth:`ProtectedWorld.triggered`). Accepted pushes are logged by a ``post-receive`` hook.
- The fake API's merge applies the branch protection (:class:`tests.github.gh_fake.Protection`):
  required status checks on the head, approvals dismissed on a new head.
"""

from __future__ import annotations

import base64
import contextlib
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from tests.git_http_backend import GitBackendHandler
from tests.github.gh_fake import BOT, TOKEN, Protection
from tests.github.gh_world import World, git

APP = "averos-apply[bot]"
APP_TOKEN = "ghs_APPinstallationTOKEN0123456789abcdef"

PRE_RECEIVE = """#!/bin/sh
# The default branch's ruleset: no direct update but by the bypass list. REMOTE_USER is the
# identity of the token (git http-backend); a local push is the forge's own (merge button).
while read old new ref; do
  [ "$ref" = "refs/heads/main" ] || continue
  [ -n "$REMOTE_USER" ] || continue
  grep -qxF "$REMOTE_USER" bypass-actors 2>/dev/null && continue
  echo "error: GH013: Repository rule violations found for refs/heads/main." >&2
  echo "error: - Changes must be made through a pull request." >&2
  exit 1
done
exit 0
"""

POST_RECEIVE = """#!/bin/sh
while read old new ref; do
  echo "${REMOTE_USER:-forge} $ref $old $new" >> pushes.log
done
"""


@dataclass
class GitServer:
    """The origin's smart-HTTP endpoint: ``{url}/{owner}/{repo}`` serves ``origin``."""

    origin: Path
    repo: str
    identities: dict[str, str]  # token -> identity
    url: str = ""
    refused: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(GitBackendHandler):
            def _identity(self) -> str | None:
                scheme, _, encoded = (self.headers.get("Authorization") or "").partition(" ")
                if scheme.lower() != "basic":
                    return None
                try:
                    _, _, token = base64.b64decode(encoded.strip()).decode().partition(":")
                except ValueError:
                    return None
                return server.identities.get(token)

            def serve_git(self) -> None:
                body = self.request_body()
                url = urlsplit(self.path)
                prefix = f"/{server.repo}"
                who = self._identity()
                if who is None or not url.path.startswith(prefix):
                    with server.lock:
                        server.refused += 1
                    self.refuse(401 if who is None else 404, "GitHub")
                    return
                rest = url.path[len(prefix) :].removeprefix(".git")
                self.relay(
                    body,
                    project_root=server.origin.parent,
                    path_info=f"/{server.origin.name}{rest}",
                    remote_user=who,
                )

        return Handler


@contextlib.contextmanager
def serving(origin: Path, repo: str) -> Iterator[GitServer]:
    server = GitServer(origin, repo, {TOKEN: BOT, APP_TOKEN: APP})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), server.handler())
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    server.url = f"http://127.0.0.1:{httpd.server_address[1]}"
    try:
        yield server
    finally:
        httpd.shutdown()
        httpd.server_close()


@dataclass(frozen=True)
class Push:
    by: str  # a person's login, the App, the bot, or "forge" (GitHub itself)
    ref: str
    old: str
    new: str


@dataclass
class ProtectedWorld(World):
    """The world with a protected ``main``, its origin served over HTTP (:func:`serving`)."""

    server_url: str = ""
    app_installed: bool = True  # the apply workflow passes the App's token (push-token)
    merges: list[Push] = field(default_factory=list)

    def __post_init__(self) -> None:
        super().__post_init__()
        for name, text in (("pre-receive", PRE_RECEIVE), ("post-receive", POST_RECEIVE)):
            hook = self.origin / "hooks" / name
            hook.write_text(text, encoding="utf-8")
            hook.chmod(0o755)
        self.set_bypass(app=True)
        self.fake.protection = Protection()

    def set_bypass(self, *, app: bool) -> None:
        """The ruleset's bypass list: the App, or nobody."""
        text = f"{APP}\n" if app else ""
        (self.origin / "bypass-actors").write_text(text, encoding="utf-8")

    def checkout(self, sha: str) -> Path:
        job = super().checkout(sha)
        git(job, "remote", "set-url", "origin", f"{self.server_url}/{self.fake.repo}")
        return job

    def job_env(
        self,
        event_name: str,
        payload: dict[str, Any],
        checkout: Path,
        sha: str,
        *,
        rerun_of: str | None = None,
    ) -> dict[str, str]:
        env = super().job_env(event_name, payload, checkout, sha, rerun_of=rerun_of)
        env["GITHUB_SERVER_URL"] = self.server_url
        if event_name == "push" and self.app_installed:  # only the apply job gets the App
            env["AVEROS_CI_PUSH_TOKEN"] = APP_TOKEN
        return env

    # -- the forge ------------------------------------------------------------------------

    def merge_pr(self, number: int, *, by: str = "bob") -> str:
        """``by`` presses "Merge": the branch protection decides (it raises
        :class:`~tests.github.gh_fake.MergeRefused`), then the merge commit lands on main."""
        self.fake.check_mergeable(number)
        before = self.branch_sha("main") or ""
        merge = self.merge(str(self.fake.pulls[number]["head"]["ref"]))
        self.fake.merge(number, merge)
        self.merges.append(Push(by, "refs/heads/main", before, merge))
        return merge

    def pushes(self) -> list[Push]:
        """Every accepted push: the merges, and what came over HTTP (in order of each)."""
        log = self.origin / "pushes.log"
        lines = log.read_text(encoding="utf-8").splitlines() if log.exists() else []
        http = [Push(*line.split()) for line in lines if not line.startswith("forge ")]
        return [*self.merges, *http]

    def triggered(self, push: Push) -> bool:
        """Whether GitHub starts the ``push`` workflow for it."""
        if push.by == BOT or not push.ref.startswith("refs/heads/"):
            return False  # GITHUB_TOKEN pushes trigger no workflow
        message = git(self.origin, "log", "-1", "--format=%B", push.new)
        return "[skip ci]" not in message
