"""A fake GitHub REST API on 127.0.0.1: a real HTTP server (pytest-httpserver / werkzeug)
that records every request and answers with the documented shapes.

Endpoints (https://docs.github.com/en/rest, API version 2022-11-28):
  GET  /user                                              -> 403 for an installation token
  GET  /repos/{o}/{r}/pulls?state=&head=owner:branch  (Link pagination)
  GET  /repos/{o}/{r}/pulls/{n}
  GET  /repos/{o}/{r}/issues/{n}/comments                 (Link pagination, per_page)
  POST /repos/{o}/{r}/issues/{n}/comments                 {"body"} (422 above 65,536)
  GET  /repos/{o}/{r}/issues/comments/{id}
  PATCH /repos/{o}/{r}/issues/comments/{id}               {"body"}
  POST /repos/{o}/{r}/issues/comments/{id}/reactions      {"content"}
  GET  /repos/{o}/{r}/pulls/{n}/reviews                   (Link pagination)
  GET  /repos/{o}/{r}/pulls/{n}/commits                   (Link pagination; "commit" schema)
  GET  /repos/{o}/{r}/issues/{n}/timeline                 (Link pagination; committed and
                                                          state-change events)
  GET  /repos/{o}/{r}/collaborators/{user}/permission     404 for non-collaborators
  POST /repos/{o}/{r}/statuses/{sha}                      {"state","context",...}
  GET  /repos/{o}/{r}/commits/{sha}/status                combined status (paginated)
  GET  /repos/{o}/{r}/commits/{sha}/statuses              (Link pagination)
  GET  /repos/{o}/{r}/commits/{sha}/pulls
  POST /repos/{o}/{r}/pulls                               {"title","head","base","body"} -> 201
  GET  /repos/{o}/{r}/issues?labels=&state=&since=        (Link pagination; issues only)
  POST /repos/{o}/{r}/issues                              {"title","body","labels"} -> 201
  GET|PATCH /repos/{o}/{r}/issues/{n}                     {"title","body","state",
                                                          "state_reason","labels"}
  GET  /repos/{o}/{r}/labels/{name}, POST /repos/{o}/{r}/labels  (422 already_exists)

Branch protection of the default branch (``protection``, off unless set): the merge button
(:meth:`FakeGitHub.check_mergeable`) wants the required status contexts ``success`` on the
head and approving reviews by people other than the author; a new head dismisses the
approvals given on an older one ("dismiss stale pull request approvals").

GitHub's secondary rate limits (:class:`SecondaryLimits`, off unless
:meth:`FakeGitHub.enforce_secondary_limits` is called): a content-creating request (POST,
PATCH, PUT, DELETE) over a window's limit is refused as GitHub refuses it — 403 with
``retry-after`` (or ``x-ratelimit-remaining: 0`` + ``x-ratelimit-reset``) and the
"secondary rate limit" message — and changes nothing.
"""

from __future__ import annotations

import contextlib
import copy
import itertools
import json
import math
import re
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import parse_qs, urlencode

from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

TOKEN = "ghs_FAKEtoken0123456789abcdefSECRET"
BOT = "github-actions[bot]"
API_VERSION = "2022-11-28"
REACTIONS = {"+1", "-1", "laugh", "confused", "heart", "hooray", "rocket", "eyes"}
STATUS_STATES = {"error", "failure", "pending", "success"}
# Legacy `permission` values as GitHub maps role names (maintain -> write, triage -> read).
_LEGACY = {
    "admin": "admin",
    "maintain": "write",
    "write": "write",
    "triage": "read",
    "read": "read",
}


class MergeRefused(Exception):
    """The branch protection refuses the merge (what GitHub's merge box says)."""


@dataclass(frozen=True)
class Protection:
    """The default branch's rules the merge box enforces."""

    required_contexts: tuple[str, ...] = ("averos-ci/plan",)
    required_approvals: int = 1
    dismiss_stale: bool = True


SECONDARY_LIMIT_MESSAGE = (
    "You have exceeded a secondary rate limit. Please wait a few minutes before you try again. "
    "If you reach out to GitHub Support for help, please include the request ID."
)
SECONDARY_LIMIT_DOCS = (
    "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"
)
CONTENT_CREATING = frozenset({"POST", "PATCH", "PUT", "DELETE"})


@dataclass(frozen=True)
class SecondaryLimits:
    """GitHub's secondary rate limits on one token's content-creating requests: ``windows``
    are (most requests, seconds) pairs — GitHub documents about 80 a minute and 500 an hour.
    ``clock``: the fake's time (a test may pass one its client's ``sleep`` advances).
    ``answer``: ``"retry-after"`` or ``"reset"`` (``x-ratelimit-remaining: 0`` and
    ``x-ratelimit-reset``, epoch seconds of the wall clock); ``status``: 403 or 429."""

    windows: tuple[tuple[int, float], ...] = ((80, 60.0), (500, 3600.0))
    clock: Callable[[], float] = time.monotonic
    answer: str = "retry-after"
    status: int = 403


@dataclass
class Recorded:
    method: str
    path: str
    query: str
    headers: dict[str, str]
    body: str
    status: int
    response: str = ""  # the body answered (checked against GitHub's OpenAPI description)


@dataclass
class FakeGitHub:
    server: HTTPServer
    repo: str = "Codertocat/Hello-World"
    page_size: int = 2  # small pages: every list endpoint is paginated in the tests
    comments: dict[int, dict[str, Any]] = field(default_factory=dict)
    reviews: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    pulls: dict[int, dict[str, Any]] = field(default_factory=dict)
    pull_commits: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    timeline: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    roles: dict[str, str] = field(default_factory=dict)
    statuses: list[dict[str, Any]] = field(default_factory=list)
    reactions: list[tuple[int, str]] = field(default_factory=list)
    requests: list[Recorded] = field(default_factory=list)
    faults: list[tuple[str, str, Callable[[], Response]]] = field(default_factory=list)
    user_login: str | None = None  # None: GET /user answers 403 (installation token)
    base_sha: str = "0" * 40  # base.sha of new pull requests (the world sets its main tip)
    # branch name -> its sha on the origin (set by the world): POST /pulls needs the head
    branch_sha: Callable[[str], str | None] | None = None
    created_pulls: list[int] = field(default_factory=list)
    protection: Protection | None = None  # the default branch's protection (merge box)
    issues: dict[int, dict[str, Any]] = field(default_factory=dict)
    labels: dict[str, dict[str, Any]] = field(default_factory=dict)
    limits: SecondaryLimits | None = None  # enforce_secondary_limits() turns them on
    _writes: list[float] = field(default_factory=list)  # accepted content-creating requests
    _ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1000))
    _clock: datetime = field(default_factory=lambda: datetime(2026, 1, 1, tzinfo=UTC))
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self.server.expect_request(re.compile(r"^/.*")).respond_with_handler(self._handle)

    @property
    def url(self) -> str:
        return self.server.url_for("").rstrip("/")

    # -- test-side helpers -----------------------------------------------------------------

    def _now(self) -> str:
        self._clock += timedelta(seconds=1)
        return self._clock.isoformat().replace("+00:00", "Z")

    def add_pull(
        self,
        number: int,
        *,
        author: str,
        head_sha: str,
        head_ref: str = "feature",
        fork: bool = False,
    ) -> dict[str, Any]:
        head_repo = "someone/fork" if fork else self.repo
        pr = {
            "number": number,
            "state": "open",
            "user": {"login": author},
            "head": {"sha": head_sha, "ref": head_ref, "repo": {"full_name": head_repo}},
            "base": {"sha": self.base_sha, "ref": "main", "repo": {"full_name": self.repo}},
            "merged": False,
            "merged_at": None,
            "merge_commit_sha": None,
            "html_url": f"https://github.com/{self.repo}/pull/{number}",
        }
        self.pulls[number] = pr
        self.pull_commits[number] = [self.commit_item(head_sha, author=author)]
        self.timeline[number] = [self.committed_event(head_sha, author=author)]
        return pr

    def push_head(
        self, number: int, sha: str, *, by: str | None = None, committer: str | None = None
    ) -> None:
        """A new head commit, authored by ``by`` (default: the PR's author)."""
        pr = self.pulls[number]
        pr["head"]["sha"] = sha
        if self.protection is not None and self.protection.dismiss_stale:
            for review in self.reviews.get(number, []):
                if review["state"] == "APPROVED" and review["commit_id"] != sha:
                    review["state"] = "DISMISSED"
        author = by or pr["user"]["login"]
        self.pull_commits.setdefault(number, []).append(
            self.commit_item(sha, author=author, committer=committer or author)
        )
        self.timeline.setdefault(number, []).append(self.committed_event(sha, author=author))

    def committed_event(self, sha: str, *, author: str | None) -> dict[str, Any]:
        """A ``committed`` item of GET /issues/{n}/timeline (OpenAPI
        ``timeline-committed-event``): git's author and committer, no account, no pusher."""
        api = f"https://api.github.com/repos/{self.repo}"
        person = {"name": author or "someone", "email": f"{author}@example.com",
                  "date": self._now()}  # fmt: skip
        return {
            "event": "committed",
            "sha": sha,
            "node_id": f"C_{sha[:12]}",
            "url": f"{api}/git/commits/{sha}",
            "html_url": f"https://github.com/{self.repo}/commit/{sha}",
            "author": person,
            "committer": person,
            "tree": {"sha": sha, "url": f"{api}/git/trees/{sha}"},
            "message": "commit",
            "parents": [],
            "verification": {
                "verified": False,
                "reason": "unsigned",
                "signature": None,
                "payload": None,
                "verified_at": None,
            },
        }

    def timeline_event(
        self, number: int, event: str, *, actor: str, commit_id: str | None = None
    ) -> None:
        """A state change on #``number``'s timeline (OpenAPI ``state-change-issue-event``):
        ``reopened``, ``ready_for_review``, ``head_ref_force_pushed`` (``commit_id``: the new
        head) — with the server's time and the account that made it."""
        api = f"https://api.github.com/repos/{self.repo}"
        ident = next(self._ids)
        self.timeline.setdefault(number, []).append(
            {
                "id": ident,
                "node_id": f"E_{ident}",
                "url": f"{api}/issues/events/{ident}",
                "actor": _simple_user(actor),
                "event": event,
                "commit_id": commit_id,
                "commit_url": f"{api}/commits/{commit_id}" if commit_id else None,
                "created_at": self._now(),
                "performed_via_github_app": None,
            }
        )

    def commit_item(
        self, sha: str, *, author: str | None, committer: str | None = None
    ) -> dict[str, Any]:
        """An item of GET /pulls/{n}/commits as GitHub sends it (OpenAPI ``commit``): the
        top-level ``author``/``committer`` are the accounts (``null`` for an unknown e-mail)."""
        committer = committer if committer is not None else author
        api = f"{self.url}/repos/{self.repo}"

        def signature(login: str | None) -> dict[str, str]:
            name = login or "Someone Unknown"
            return {"name": name, "email": f"{name}@example.com", "date": self._now()}

        return {
            "url": f"{api}/commits/{sha}",
            "sha": sha,
            "node_id": f"C_{sha[:12]}",
            "html_url": f"https://github.com/{self.repo}/commit/{sha}",
            "comments_url": f"{api}/commits/{sha}/comments",
            "commit": {
                "url": f"{api}/git/commits/{sha}",
                "author": signature(author),
                "committer": signature(committer),
                "message": "change",
                "tree": {"url": f"{api}/git/trees/{sha}", "sha": sha},
                "comment_count": 0,
            },
            "author": _simple_user(author) if author else None,
            "committer": _simple_user(committer) if committer else None,
            "parents": [],
        }

    def check_mergeable(self, number: int) -> None:
        """The merge box under :attr:`protection`: raises :class:`MergeRefused` with its
        reason (nothing when the branch is not protected)."""
        rules, pr = self.protection, self.pulls[number]
        if rules is None:
            return
        head, author = pr["head"]["sha"], pr["user"]["login"]
        for context in rules.required_contexts:
            status = self.context_status(head, context)
            if status is None or status["state"] != "success":
                state = status["state"] if status else "expected"
                raise MergeRefused(f"required status check {context!r} is {state} on {head}")
        approvers = {
            r["user"]["login"]
            for r in self.reviews.get(number, [])
            if r["state"] == "APPROVED" and r["commit_id"] == head and r["user"]["login"] != author
        }
        if len(approvers) < rules.required_approvals:
            raise MergeRefused(
                f"{rules.required_approvals} approving review(s) required on {head}, "
                f"{len(approvers)} given"
            )

    def merge(self, number: int, merge_sha: str) -> None:
        pr = self.pulls[number]
        pr.update(state="closed", merged=True, merged_at=self._now(), merge_commit_sha=merge_sha)

    def add_comment(
        self, number: int, *, user: str, body: str, at: str | None = None
    ) -> dict[str, Any]:
        """``at``: its ``created_at`` (GitHub's 1-second clock; default: the next second)."""
        with self._lock:
            comment = self._new_comment(number, user, body)
            if at is not None:
                comment.update(created_at=at, updated_at=at)
            return comment

    def edit_comment(self, comment_id: int, body: str) -> dict[str, Any]:
        """A user with write access edits any comment in the web UI (the bot's too): the
        author stays, ``updated_at`` moves."""
        with self._lock:
            comment = self.comments[comment_id]
            comment.update(body=body, updated_at=self._now())
            return comment

    def add_status(self, sha: str, *, by: str, **data: Any) -> dict[str, Any]:
        """A status created by ``by`` (any user with write access may create statuses)."""
        with self._lock:
            self.statuses.append({"sha": sha, **data})
            return self._status_object(sha, data, creator=by)

    def add_review(
        self, number: int, *, user: str, state: str, commit_id: str, body: str = ""
    ) -> dict[str, Any]:
        review = {
            "id": next(self._ids),
            "user": {"login": user},
            "state": state,
            "commit_id": commit_id,
            "body": body,
            "submitted_at": self._now(),
        }
        self.reviews.setdefault(number, []).append(review)
        return review

    def bot_comments(self, number: int) -> list[dict[str, Any]]:
        return [
            c
            for c in self.comments.values()
            if c["_number"] == number and c["user"]["login"] == BOT
        ]

    def fail_next(
        self,
        method: str,
        path_re: str,
        status: int,
        *,
        times: int = 1,
        headers: dict[str, str] | None = None,
    ) -> None:
        for _ in range(times):
            self.faults.append(
                (
                    method,
                    path_re,
                    lambda: Response(
                        json.dumps({"message": f"injected {status}"}),
                        status=status,
                        headers=headers or {},
                        content_type="application/json",
                    ),
                )
            )

    def saved(self) -> Callable[[], None]:
        """The threads as they are now (comments, issues, statuses, reactions); calling the
        result puts them back and forgets the requests since. For a bench that repeats one
        scenario: each run must read what the first read, not the comments of the runs before."""
        with self._lock:
            kept = copy.deepcopy((self.comments, self.issues, self.statuses, self.reactions))

        def restore() -> None:
            with self._lock:
                self.comments, self.issues, self.statuses, self.reactions = copy.deepcopy(kept)
                self.requests.clear()

        return restore

    def sent(self, method: str, pattern: str) -> list[Recorded]:
        return [r for r in self.requests if r.method == method and re.search(pattern, r.path)]

    def enforce_secondary_limits(self, limits: SecondaryLimits | None = None) -> None:
        """Refuse content-creating requests over ``limits`` (default: GitHub's documented
        ones) as GitHub does; ``None`` after this call is not possible: set ``limits``."""
        with self._lock:
            self.limits = limits or SecondaryLimits()
            self._writes.clear()

    def rate_limited(self) -> list[Recorded]:
        """The requests refused by the secondary limits."""
        return [r for r in self.requests if r.status in (403, 429) and "secondary" in r.response]

    def add_issue(
        self, *, title: str, body: str, labels: tuple[str, ...] = (), user: str = BOT
    ) -> dict[str, Any]:
        """An issue opened by ``user`` (e.g. a person who copied a bot's issue)."""
        with self._lock:
            return self._new_issue(title, body, list(labels), user)

    def issues_labelled(self, label: str, *, state: str = "open") -> list[dict[str, Any]]:
        return [
            i
            for i in sorted(self.issues.values(), key=lambda i: i["number"])
            if (state == "all" or i["state"] == state) and label in _label_names(i)
        ]

    def issue_comments(self, number: int) -> list[str]:
        return [c["body"] for c in self.comments.values() if c["_number"] == number]

    def check_exchanges(self, spec: Any, pattern: str) -> int:
        """Check every recorded exchange whose path matches ``pattern`` against GitHub's
        OpenAPI description (:class:`tests.openapi_check.OpenAPISpec`): the request (query,
        JSON body) and the answer. Returns how many were checked."""
        checked = 0
        for r in list(self.requests):
            if not re.search(pattern, r.path):
                continue
            query = {k: v[-1] for k, v in parse_qs(r.query).items()}
            spec.check_request(r.method, r.path, query, json.loads(r.body) if r.body else None)
            spec.check(r.method, r.path, query, r.status, json.loads(r.response or "null"))
            checked += 1
        return checked

    # -- server side -----------------------------------------------------------------------

    def _new_comment(self, number: int, user: str, body: str) -> dict[str, Any]:
        cid = next(self._ids)
        now = self._now()
        kind = "issues" if number in self.issues else "pull"
        comment = {  # OpenAPI ``issue-comment``
            "id": cid,
            "node_id": f"IC_{cid}",
            "url": f"{self.url}/repos/{self.repo}/issues/comments/{cid}",
            "body": body,
            "user": _simple_user(user),
            "created_at": now,
            "updated_at": now,
            "_number": number,
            "issue_url": f"{self.url}/repos/{self.repo}/issues/{number}",
            "html_url": f"https://github.com/{self.repo}/{kind}/{number}#issuecomment-{cid}",
            "author_association": "NONE",
        }
        self.comments[cid] = comment
        return comment

    def _next_number(self) -> int:
        """Issues and pull requests share one sequence of numbers, as on GitHub."""
        return max([0, *self.pulls, *self.issues]) + 1

    def _label(self, name: str, *, color: str = "ededed", description: str | None = None
               ) -> dict[str, Any]:  # fmt: skip
        if name.lower() not in self.labels:
            ident = next(self._ids)
            self.labels[name.lower()] = {
                "id": ident,
                "node_id": f"LA_{ident}",
                "url": f"{self.url}/repos/{self.repo}/labels/{name}",
                "name": name,
                "description": description,
                "color": color,
                "default": False,
            }
        return self.labels[name.lower()]

    def _new_issue(
        self, title: str, body: str | None, labels: list[str], user: str
    ) -> dict[str, Any]:
        number, now = self._next_number(), self._now()
        api = f"{self.url}/repos/{self.repo}"
        issue = {
            "id": next(self._ids),
            "node_id": f"I_{number}",
            "url": f"{api}/issues/{number}",
            "repository_url": api,
            "labels_url": f"{api}/issues/{number}/labels{{/name}}",
            "comments_url": f"{api}/issues/{number}/comments",
            "events_url": f"{api}/issues/{number}/events",
            "html_url": f"https://github.com/{self.repo}/issues/{number}",
            "number": number,
            "state": "open",
            "state_reason": None,
            "title": title,
            "body": body,
            "user": _simple_user(user),
            # GitHub creates a label named on a new issue that does not exist yet
            "labels": [self._label(name) for name in labels],
            "assignee": None,
            "milestone": None,
            "locked": False,
            "comments": 0,
            "created_at": now,
            "updated_at": now,
            "closed_at": None,
            "author_association": "NONE",
        }
        self.issues[number] = issue
        return issue

    def _secondary_limit(self, method: str) -> Response | None:
        """403/429 when a content-creating request goes over a window (nothing recorded)."""
        limits = self.limits
        if limits is None or method not in CONTENT_CREATING:
            return None
        now = limits.clock()
        wait = 0.0
        for most, seconds in limits.windows:
            recent = [t for t in self._writes if t > now - seconds]
            if len(recent) >= most:
                wait = max(wait, recent[-most] + seconds - now)
        if wait <= 0:
            self._writes.append(now)
            return None
        if limits.answer == "reset":
            headers = {
                "x-ratelimit-remaining": "0",
                "x-ratelimit-reset": str(math.ceil(time.time() + wait)),
            }
        else:
            headers = {"retry-after": str(max(1, math.ceil(wait)))}
        body = {"message": SECONDARY_LIMIT_MESSAGE, "documentation_url": SECONDARY_LIMIT_DOCS}
        return _json(body, limits.status, headers=headers)

    def _issues(self, request: Request, rest: str, data: Any) -> Response | None:
        """The issue endpoints (OpenAPI ``issues/list-for-repo``, ``issues/create``,
        ``issues/get``, ``issues/update``, ``issues/get-label``, ``issues/create-label``);
        ``None``: not one of them."""
        m = request.method
        if rest == "/issues" and m == "GET":
            query = parse_qs(request.query_string.decode())
            state = query.get("state", ["open"])[0]
            wanted = [w for w in query.get("labels", [""])[0].split(",") if w]
            since = query.get("since", [""])[0]  # ISO 8601: compared as text, as stored
            items = [
                i
                for i in sorted(self.issues.values(), key=lambda i: -i["number"])  # newest first
                if (state == "all" or i["state"] == state)
                and all(w.lower() in {n.lower() for n in _label_names(i)} for w in wanted)
                and i["updated_at"] >= since
            ]
            if query.get("direction", ["desc"])[0] == "asc":
                items.reverse()
            return self._page(request, items)
        if rest == "/issues" and m == "POST":
            if not isinstance(data, dict) or not isinstance(data.get("title"), str):
                return _validation_failed("Issue", "title", "missing_field")
            labels = data.get("labels") or []
            issue = self._new_issue(data["title"], data.get("body"), list(labels), BOT)
            return _json(issue, 201)
        if match := re.fullmatch(r"/issues/(\d+)", rest):
            found = self.issues.get(int(match[1]))
            if found is None:
                return _json({"message": "Not Found"}, 404)
            if m == "GET":
                return _json(found)
            if m == "PATCH":
                return self._update_issue(found, data)
        if (match := re.fullmatch(r"/labels/([^/]+)", rest)) and m == "GET":
            label = self.labels.get(match[1].lower())
            return _json(label) if label else _json({"message": "Not Found"}, 404)
        if rest == "/labels" and m == "POST":
            if not isinstance(data, dict) or not isinstance(data.get("name"), str):
                return _validation_failed("Label", "name", "missing_field")
            if data["name"].lower() in self.labels:
                return _validation_failed("Label", "name", "already_exists")
            label = self._label(
                data["name"],
                color=str(data.get("color", "ededed")).lstrip("#"),
                description=data.get("description"),
            )
            return _json(label, 201)
        return None

    def _update_issue(self, issue: dict[str, Any], data: Any) -> Response:
        if not isinstance(data, dict):
            return _json({"message": "Problems parsing JSON"}, 400)
        if data.get("state") not in (None, "open", "closed"):
            return _validation_failed("Issue", "state", "invalid")
        now = self._now()
        for key in ("title", "body"):
            if isinstance(data.get(key), str):
                issue[key] = data[key]
        if "labels" in data:
            issue["labels"] = [self._label(name) for name in data["labels"]]
        if data.get("state") == "closed" and issue["state"] != "closed":
            issue.update(state="closed", closed_at=now,
                         state_reason=data.get("state_reason") or "completed")  # fmt: skip
        elif data.get("state") == "open" and issue["state"] != "open":
            issue.update(state="open", closed_at=None, state_reason="reopened")
        issue["updated_at"] = now
        return _json(issue)

    def _handle(self, request: Request) -> Response:
        body = request.get_data(as_text=True)
        with self._lock:
            response = self._dispatch(request, body)
            self.requests.append(
                Recorded(
                    request.method,
                    request.path,
                    request.query_string.decode(),
                    dict(request.headers),
                    body,
                    response.status_code,
                    response.get_data(as_text=True),
                )
            )
        return response

    def _dispatch(self, request: Request, body: str) -> Response:
        for i, (method, path_re, make) in enumerate(self.faults):
            if method == request.method and re.search(path_re, request.path):
                del self.faults[i]
                return make()
        if request.headers.get("Authorization") != f"Bearer {TOKEN}":
            return _json({"message": "Bad credentials"}, 401)
        if request.headers.get("X-GitHub-Api-Version") != API_VERSION:
            return _json({"message": "missing X-GitHub-Api-Version"}, 400)
        data: Any = None
        if body:
            try:
                data = json.loads(body)
            except ValueError:
                return _json({"message": "Problems parsing JSON"}, 400)
        path, m = request.path, request.method
        if refused := self._secondary_limit(m):
            return refused
        repo = f"/repos/{self.repo}"
        if path == "/user" and m == "GET":
            if self.user_login is None:
                return _json({"message": "Resource not accessible by integration"}, 403)
            return _json({"login": self.user_login})
        if not path.startswith(repo + "/"):
            return _json({"message": "Not Found"}, 404)
        rest = path[len(repo) :]
        if (answer := self._issues(request, rest, data)) is not None:
            return answer
        if rest == "/pulls" and m == "GET":
            query = parse_qs(request.query_string.decode())
            state = query.get("state", ["open"])[0]
            head = query.get("head", [None])[0]
            base = query.get("base", [None])[0]
            items = [
                p
                for p in self.pulls.values()
                if (state == "all" or p["state"] == state)
                and (base is None or p["base"]["ref"] == base)
                and (
                    head is None
                    or f"{p['head']['repo']['full_name'].split('/')[0]}:{p['head']['ref']}" == head
                )
            ]
            return self._page(request, items)
        if rest == "/pulls" and m == "POST":
            return self._create_pull(data)
        if match := re.fullmatch(r"/pulls/(\d+)", rest):
            pr = self.pulls.get(int(match[1]))
            return _json(pr) if pr and m == "GET" else _json({"message": "Not Found"}, 404)
        if match := re.fullmatch(r"/issues/(\d+)/comments", rest):
            number = int(match[1])
            if m == "GET":
                items = [_public(c) for c in self.comments.values() if c["_number"] == number]
                return self._page(request, items)
            if m == "POST":
                if err := _body_error(data):
                    return err
                if number in self.issues:
                    self.issues[number]["comments"] += 1
                return _json(_public(self._new_comment(number, BOT, data["body"])), 201)
        if match := re.fullmatch(r"/issues/comments/(\d+)", rest):
            comment = self.comments.get(int(match[1]))
            if comment is None:
                return _json({"message": "Not Found"}, 404)
            if m == "GET":
                return _json(_public(comment))
            if m == "PATCH":
                if err := _body_error(data):
                    return err
                if comment["user"]["login"] != BOT:
                    return _json({"message": "Must have admin rights to Repository."}, 403)
                comment.update(body=data["body"], updated_at=self._now())
                return _json(_public(comment))
        if (match := re.fullmatch(r"/issues/comments/(\d+)/reactions", rest)) and m == "POST":
            if not isinstance(data, dict) or data.get("content") not in REACTIONS:
                return _json({"message": "Validation Failed"}, 422)
            self.reactions.append((int(match[1]), data["content"]))
            return _json({"id": next(self._ids), "content": data["content"]}, 201)
        if (match := re.fullmatch(r"/pulls/(\d+)/reviews", rest)) and m == "GET":
            return self._page(request, list(self.reviews.get(int(match[1]), [])))
        if (match := re.fullmatch(r"/issues/(\d+)/timeline", rest)) and m == "GET":
            if int(match[1]) not in self.pulls:
                return _json({"message": "Not Found"}, 404)
            return self._page(request, list(self.timeline.get(int(match[1]), [])))
        if (match := re.fullmatch(r"/pulls/(\d+)/commits", rest)) and m == "GET":
            if int(match[1]) not in self.pulls:
                return _json({"message": "Not Found"}, 404)
            return self._page(request, list(self.pull_commits.get(int(match[1]), []))[:250])
        if (match := re.fullmatch(r"/collaborators/([^/]+)/permission", rest)) and m == "GET":
            role = self.roles.get(match[1])
            if role is None:
                return _json({"message": f"{match[1]} is not a user"}, 404)
            return _json(
                {"permission": _LEGACY[role], "role_name": role, "user": {"login": match[1]}}
            )
        if (match := re.fullmatch(r"/statuses/([0-9a-f]{40})", rest)) and m == "POST":
            ok = (
                isinstance(data, dict)
                and data.get("state") in STATUS_STATES
                and isinstance(data.get("context", ""), str)
            )
            if not ok:
                return _json({"message": "Validation Failed"}, 422)
            self.statuses.append({"sha": match[1], **data})
            return _json(self._status_object(match[1], data), 201)
        if (match := re.fullmatch(r"/commits/([0-9a-f]{40})/status", rest)) and m == "GET":
            return self._combined_status(request, match[1])
        if (match := re.fullmatch(r"/commits/([0-9a-f]{40})/statuses", rest)) and m == "GET":
            items = [s["_object"] for s in reversed(self.statuses) if s["sha"] == match[1]]
            return self._page(request, items)
        if (match := re.fullmatch(r"/commits/([0-9a-f]{40})/pulls", rest)) and m == "GET":
            items = [
                p
                for p in self.pulls.values()
                if p["merge_commit_sha"] == match[1] or p["head"]["sha"] == match[1]
            ]
            return self._page(request, items)
        return _json({"message": "Not Found"}, 404)

    def _create_pull(self, data: Any) -> Response:
        """POST /repos/{owner}/{repo}/pulls, checked against GitHub's OpenAPI description
        (@octokit/openapi 23.0.2, generated/api.github.com.json): ``head`` and ``base``
        required (and ``title`` unless ``issue``); 201 with the pull-request object's required
        keys; 422 "Validation Failed" (``message``, ``documentation_url``, ``errors``) for an
        unknown head or an existing open PR."""
        if not isinstance(data, dict) or not all(
            isinstance(data.get(k), str) for k in ("head", "base")
        ):
            return _validation_failed("PullRequest", "base", "missing_field")
        if not isinstance(data.get("title"), str) and "issue" not in data:
            return _validation_failed("PullRequest", "title", "missing_field")
        head = data["head"].split(":")[-1]
        sha = self.branch_sha(head) if self.branch_sha else None
        if sha is None:
            return _validation_failed("PullRequest", "head", "invalid")
        for p in self.pulls.values():
            if (
                p["state"] == "open"
                and p["head"]["ref"] == head
                and p["base"]["ref"] == data["base"]
            ):
                owner = self.repo.split("/")[0]
                return _validation_failed(
                    "PullRequest",
                    None,
                    "custom",
                    f"A pull request already exists for {owner}:{head}.",
                )
        number = self._next_number()
        pr = self.add_pull(number, author=BOT, head_sha=sha, head_ref=head)
        pr["base"]["ref"] = data["base"]
        now = self._now()
        owner = self.repo.split("/")[0]
        api = f"{self.url}/repos/{self.repo}"
        pr.update(
            id=next(self._ids),
            node_id=f"PR_{number}",
            url=f"{api}/pulls/{number}",
            issue_url=f"{api}/issues/{number}",
            comments_url=f"{api}/issues/{number}/comments",
            commits_url=f"{api}/pulls/{number}/commits",
            review_comments_url=f"{api}/pulls/{number}/comments",
            review_comment_url=f"{api}/pulls/comments{{/number}}",
            statuses_url=f"{api}/statuses/{sha}",
            diff_url=f"https://github.com/{self.repo}/pull/{number}.diff",
            patch_url=f"https://github.com/{self.repo}/pull/{number}.patch",
            _links={"self": {"href": f"{api}/pulls/{number}"}},
            title=data.get("title", ""),
            body=data.get("body"),
            draft=bool(data.get("draft", False)),
            locked=False,
            created_at=now,
            updated_at=now,
            closed_at=None,
            assignee=None,
            labels=[],
            milestone=None,
            author_association="NONE",
            auto_merge=None,
            additions=0,
            deletions=0,
            changed_files=0,
            comments=0,
            review_comments=0,
            commits=1,
            mergeable=None,
            mergeable_state="unknown",
            merged_by=None,
            maintainer_can_modify=bool(data.get("maintainer_can_modify", False)),
        )
        pr["user"]["login"] = BOT
        for side, ref, at in (("head", head, sha), ("base", data["base"], self.base_sha)):
            pr[side].update(label=f"{owner}:{ref}", ref=ref, sha=at, user={"login": owner})
            pr[side]["repo"] = {"full_name": self.repo}
        self.created_pulls.append(number)
        return _json(pr, 201)

    def _page(self, request: Request, items: list[Any]) -> Response:
        query = parse_qs(request.query_string.decode())
        per_page = min(int(query.get("per_page", ["30"])[0]), self.page_size)
        page = int(query.get("page", ["1"])[0])
        chunk = items[(page - 1) * per_page : page * per_page]
        headers = {}
        if page * per_page < len(items):
            # GitHub's next link keeps the request's filters (state, labels, direction …)
            kept = {k: v[-1] for k, v in query.items() if k not in ("per_page", "page")}
            nxt = urlencode({**kept, "per_page": per_page, "page": page + 1})
            headers["Link"] = f'<{self.url}{request.path}?{nxt}>; rel="next"'
        return _json(chunk, headers=headers)

    def _status_object(
        self, sha: str, data: dict[str, Any], *, creator: str = BOT
    ) -> dict[str, Any]:
        """OpenAPI ``status`` (@octokit/openapi, generated/api.github.com.json): url,
        avatar_url, id, node_id, state, description, target_url, context, created_at,
        updated_at, creator — kept with the recorded status for the read endpoints."""
        sid, now = next(self._ids), self._now()
        obj = {
            "url": f"{self.url}/repos/{self.repo}/statuses/{sha}",
            "avatar_url": "https://avatars.githubusercontent.com/in/15368?v=4",
            "id": sid,
            "node_id": f"SC_{sid}",
            "state": data["state"],
            "description": data.get("description"),
            "target_url": data.get("target_url"),
            "context": data.get("context", "default"),
            "created_at": now,
            "updated_at": now,
            "creator": _simple_user(creator),  # the token's identity (statuses via TOKEN)
        }
        self.statuses[-1]["_object"] = obj
        return obj

    def _combined_status(self, request: Request, sha: str) -> Response:
        """GET /commits/{ref}/status, OpenAPI ``combined-commit-status``: ``state``, ``sha``,
        ``total_count``, ``statuses`` (``simple-commit-status``: the latest per context,
        paginated by ``per_page``/``page``), ``repository``, ``commit_url``, ``url``. The
        combined state: failure if any is error/failure, pending if any is pending or none
        exist, else success."""
        latest: dict[str, dict[str, Any]] = {}
        for s in self.statuses:
            if s["sha"] == sha:
                latest[s["_object"]["context"]] = s["_object"]
        items = [{k: v for k, v in o.items() if k != "creator"} for o in latest.values()]
        states = {o["state"] for o in items}
        if states & {"error", "failure"}:
            state = "failure"
        elif not items or "pending" in states:
            state = "pending"
        else:
            state = "success"
        query = parse_qs(request.query_string.decode())
        per_page = min(int(query.get("per_page", ["30"])[0]), self.page_size)
        page = int(query.get("page", ["1"])[0])
        owner, name = self.repo.split("/")
        api = f"{self.url}/repos/{self.repo}"
        return _json(
            {
                "state": state,
                "sha": sha,
                "total_count": len(items),
                "statuses": items[(page - 1) * per_page : page * per_page],
                "repository": {
                    "id": zlib.crc32(self.repo.encode()),
                    "node_id": f"R_{name}",
                    "name": name,
                    "full_name": self.repo,
                    "owner": _simple_user(owner),
                    "private": False,
                    "html_url": f"https://github.com/{self.repo}",
                    "description": None,
                    "fork": False,
                    "url": api,
                },
                "commit_url": f"{api}/commits/{sha}",
                "url": f"{api}/commits/{sha}/status",
            }
        )

    def context_status(self, sha: str, context: str) -> dict[str, Any] | None:
        """The latest status of ``context`` on ``sha``."""
        found = [s for s in self.statuses if s["sha"] == sha and s.get("context") == context]
        return found[-1] if found else None

    def latest_status(self, sha: str) -> dict[str, Any] | None:
        found = [s for s in self.statuses if s["sha"] == sha]
        return found[-1] if found else None


def _simple_user(login: str) -> dict[str, Any]:
    """OpenAPI ``simple-user`` with every required field."""
    url = f"https://api.github.com/users/{login}"
    return {
        "login": login,
        "id": zlib.crc32(login.encode()) % 10_000_000,
        "node_id": f"U_{login}",
        "avatar_url": f"https://avatars.githubusercontent.com/{login}",
        "gravatar_id": "",
        "url": url,
        "html_url": f"https://github.com/{login}",
        "followers_url": f"{url}/followers",
        "following_url": f"{url}/following{{/other_user}}",
        "gists_url": f"{url}/gists{{/gist_id}}",
        "starred_url": f"{url}/starred{{/owner}}{{/repo}}",
        "subscriptions_url": f"{url}/subscriptions",
        "organizations_url": f"{url}/orgs",
        "repos_url": f"{url}/repos",
        "events_url": f"{url}/events{{/privacy}}",
        "received_events_url": f"{url}/received_events",
        "type": "Bot" if login.endswith("[bot]") else "User",
        "site_admin": False,
    }


def _validation_failed(
    resource: str, field: str | None, code: str, message: str | None = None
) -> Response:
    error: dict[str, Any] = {"resource": resource, "code": code}
    if field is not None:
        error["field"] = field
    if message is not None:
        error["message"] = message
    return _json(
        {
            "message": "Validation Failed",
            "errors": [error],
            "documentation_url": "https://docs.github.com/rest/pulls/pulls#create-a-pull-request",
        },
        422,
    )


def _label_names(issue: dict[str, Any]) -> list[str]:
    return [label["name"] for label in issue["labels"]]


def _public(comment: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in comment.items() if not k.startswith("_")}


def _body_error(data: Any) -> Response | None:
    if not isinstance(data, dict) or not isinstance(data.get("body"), str):
        return _json({"message": 'Invalid request. "body" wasn\'t supplied.'}, 422)
    if len(data["body"]) > 65_536:
        return _json(
            {
                "message": "Validation Failed",
                "errors": [
                    {
                        "resource": "IssueComment",
                        "code": "custom",
                        "field": "body",
                        "message": "body is too long (maximum is 65536 characters)",
                    }
                ],
            },
            422,
        )
    return None


def _json(data: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    return Response(
        json.dumps(data),
        status=status,
        headers=headers or {},
        content_type="application/json; charset=utf-8",
    )


@contextlib.contextmanager
def running_fake() -> Iterator[FakeGitHub]:
    """A fresh fake GitHub API on 127.0.0.1 (threaded: jobs run as separate processes)."""
    server = HTTPServer(host="127.0.0.1", port=0, threaded=True)
    server.start()
    try:
        yield FakeGitHub(server)
    finally:
        server.clear()
        server.stop()
