"""The transport of the GitHub REST client: pinned API version, Link pagination, bounded
retries, rate limits. The endpoints are :class:`averos_ci.forge.api.GitHubClient`.

The token lives only in the ``Authorization`` header of requests to the configured API host;
it is never part of a message, an exception or a log line.
"""

from __future__ import annotations

import os
import ssl
import time
from collections.abc import Callable, Iterator
from email.utils import parsedate_to_datetime
from typing import Any, Self
from urllib.parse import urlsplit

import httpx

from averos_ci.errors import AverosCIError, ExitCode

API_VERSION = "2022-11-28"
USER_AGENT = "averos-ci"
_IDEMPOTENT = frozenset({"GET", "HEAD", "PUT", "PATCH", "DELETE"})
# GitHub's advice for a secondary rate limit answered without retry-after or
# x-ratelimit-reset: wait at least a minute (docs: "Rate limits for the REST API")
SECONDARY_LIMIT_WAIT = 60.0


_TLS: dict[tuple[str, str], ssl.SSLContext] = {}


def tls_context() -> ssl.SSLContext:
    """httpx's default verifying context (certifi's bundle, or ``SSL_CERT_FILE`` /
    ``SSL_CERT_DIR``), made once per process and trust setting: loading the bundle costs ~40 ms
    of CPU, as much as the rest of a job's start."""
    key = (os.environ.get("SSL_CERT_FILE", ""), os.environ.get("SSL_CERT_DIR", ""))
    if key not in _TLS:
        _TLS[key] = httpx.create_ssl_context()
    return _TLS[key]


class GitHubAPIError(AverosCIError):
    """The GitHub API refused a request or stayed unavailable after the retries (exit 1)."""

    exit_code = ExitCode.FAILED

    def __init__(self, message: str, *, status: int | None = None, hint: str | None = None) -> None:
        super().__init__(message, hint=hint)
        self.status = status


class RestClient:
    def __init__(
        self,
        *,
        token: str | None,
        repository: str,
        api_url: str = "https://api.github.com",
        timeout: float = 30.0,
        max_retries: int = 4,
        max_wait: float = 60.0,
        backoff_base: float = 1.0,
        transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if repository.count("/") != 1 or not all(repository.split("/")):
            raise AverosCIError(f"GITHUB_REPOSITORY must be 'owner/name', got {repository!r}")
        self.repository = repository
        self.api_url = api_url.rstrip("/")
        self.max_retries = max_retries
        self.max_wait = max_wait
        self.backoff_base = backoff_base
        self._sleep = sleep
        self._host = urlsplit(self.api_url).netloc
        headers = {
            "Accept": "application/vnd.github+json",
            "X-GitHub-Api-Version": API_VERSION,
            "User-Agent": USER_AGENT,
        }
        self._token = token
        self._http = httpx.Client(
            base_url=self.api_url,
            headers=headers,
            timeout=timeout,
            transport=transport,
            verify=tls_context() if transport is None else True,  # a given transport has its own
            follow_redirects=False,
        )

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- transport -------------------------------------------------------------------------

    def request(
        self,
        method: str,
        path: str,
        *,
        json: Any = None,
        params: dict[str, Any] | None = None,
        idempotent: bool | None = None,
        ok: tuple[int, ...] = (200, 201, 204),
    ) -> httpx.Response:
        url = path if path.startswith("http") else self.api_url + path
        if urlsplit(url).netloc != self._host:  # never send the token to another host
            raise GitHubAPIError(
                f"refusing to follow a link to another host: {urlsplit(url).netloc}"
            )
        retry_unsent_only = not (method in _IDEMPOTENT if idempotent is None else idempotent)
        shown = urlsplit(url).path
        attempt = 0
        wait: float | None
        while True:
            attempt += 1
            headers = {"Authorization": f"Bearer {self._token}"} if self._token else {}
            try:
                resp = self._http.request(method, url, json=json, params=params, headers=headers)
            except (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout) as exc:
                wait = self._backoff(attempt)
                reason = f"cannot connect ({type(exc).__name__})"
            except httpx.TimeoutException as exc:
                if retry_unsent_only:
                    raise GitHubAPIError(
                        f"{method} {shown}: timed out ({type(exc).__name__}); "
                        "not retried because the request may have been applied"
                    ) from None
                wait = self._backoff(attempt)
                reason = f"timed out ({type(exc).__name__})"
            except httpx.HTTPError as exc:
                raise GitHubAPIError(f"{method} {shown}: {type(exc).__name__}") from None
            else:
                if resp.status_code in ok:
                    return resp
                wait, reason = self._retry_plan(resp, attempt, retry_unsent_only)
                if wait is None:
                    raise self._error(method, shown, resp)
            assert wait is not None
            if attempt > self.max_retries:
                raise GitHubAPIError(
                    f"{method} {shown}: {reason}; gave up after {attempt} attempts",
                    hint="GitHub may be degraded; re-run the job (no state was changed by this "
                    "request)",
                )
            if wait > self.max_wait:
                raise GitHubAPIError(
                    f"{method} {shown}: {reason}; the wait ({wait:.0f}s) exceeds the limit "
                    f"({self.max_wait:.0f}s)",
                    hint="re-run the job once the limit has reset",
                )
            self._sleep(wait)

    def _backoff(self, attempt: int) -> float:
        return float(min(self.backoff_base * 2 ** (attempt - 1), self.max_wait))

    def _retry_plan(
        self, resp: httpx.Response, attempt: int, unsent_only: bool
    ) -> tuple[float | None, str]:
        status = resp.status_code
        if status in (403, 429):
            wait = _rate_limit_wait(resp)
            if wait is not None:
                return wait, f"rate limited (HTTP {status})"
            if status == 429 or _secondary_limit(resp):
                # GitHub: without a header, wait at least a minute, then exponentially longer
                wait = max(SECONDARY_LIMIT_WAIT, self.backoff_base) * 2 ** (attempt - 1)
                return wait, f"secondary rate limit (HTTP {status})"
            return None, ""
        if status >= 500 and not unsent_only:
            return self._backoff(attempt), f"server error (HTTP {status})"
        return None, ""

    def _error(self, method: str, shown: str, resp: httpx.Response) -> GitHubAPIError:
        try:
            data = resp.json()
            detail = str(data.get("message", "")) if isinstance(data, dict) else ""
        except ValueError:
            detail = ""
        hint = None
        if resp.status_code in (401, 403):
            hint = (
                "check the token's permissions (pull-requests: write, issues: write, "
                "statuses: write, contents: write for apply)"
            )
        msg = f"{method} {shown}: HTTP {resp.status_code}" + (f" {detail}" if detail else "")
        return GitHubAPIError(msg[:500], status=resp.status_code, hint=hint)

    def paginate(
        self, path: str, *, params: dict[str, Any] | None = None, max_pages: int = 100
    ) -> Iterator[dict[str, Any]]:
        url: str | None = path
        query: dict[str, Any] | None = {"per_page": 100, **(params or {})}
        for _ in range(max_pages):
            if url is None:
                return
            resp = self.request("GET", url, params=query)
            items = resp.json()
            if not isinstance(items, list):
                raise GitHubAPIError(f"GET {urlsplit(url).path}: expected a JSON array")
            yield from (i for i in items if isinstance(i, dict))
            url = resp.links.get("next", {}).get("url")
            query = None  # the next link carries its own query
        raise GitHubAPIError(
            f"GET {path}: more than {max_pages} pages; not read to the end, so nothing that "
            "depends on it was decided (fails closed)",
            hint="a pull request flooded with comments or reviews cannot be checked: lock its "
            "conversation and open a new pull request with the same change",
        )


def json_object(resp: httpx.Response) -> dict[str, Any]:
    try:
        data = resp.json()
    except ValueError:
        raise GitHubAPIError(
            f"{resp.request.method} {resp.request.url.path}: response is not JSON"
        ) from None
    if not isinstance(data, dict):
        raise GitHubAPIError(
            f"{resp.request.method} {resp.request.url.path}: expected a JSON object"
        )
    return data


def _secondary_limit(resp: httpx.Response) -> bool:
    """A 403 that is GitHub's secondary rate limit (its message says so), not a permission."""
    try:
        data = resp.json()
    except ValueError:
        return False
    message = data.get("message") if isinstance(data, dict) else None
    return isinstance(message, str) and "secondary rate limit" in message.lower()


def _rate_limit_wait(resp: httpx.Response, now: Callable[[], float] = time.time) -> float | None:
    """Seconds to wait per ``retry-after`` / ``x-ratelimit-reset``; ``None``: not rate limited."""
    retry_after = resp.headers.get("retry-after")
    if retry_after:
        try:
            return max(0.0, float(retry_after))
        except ValueError:
            try:
                return max(0.0, parsedate_to_datetime(retry_after).timestamp() - now())
            except (TypeError, ValueError):
                return 60.0
    if resp.headers.get("x-ratelimit-remaining") == "0":
        reset = resp.headers.get("x-ratelimit-reset", "")
        try:
            return max(0.0, float(reset) - now()) + 1.0
        except ValueError:
            return 60.0
    return None
