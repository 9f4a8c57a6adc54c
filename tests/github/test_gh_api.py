"""GitHubClient against a real HTTP server: pagination, retries within bounds, clear errors."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from werkzeug import Response

from averos_ci.forge.api import API_VERSION, GitHubAPIError, GitHubClient, clip_body, tls_context
from averos_ci.forge.settings import Permission
from tests.github.gh_fake import TOKEN, FakeGitHub


@pytest.fixture
def sleeps() -> list[float]:
    return []


@pytest.fixture
def client(fake: FakeGitHub, sleeps: list[float]) -> Iterator[GitHubClient]:
    with GitHubClient(
        token=TOKEN,
        repository=fake.repo,
        api_url=fake.url,
        timeout=2,
        max_retries=3,
        max_wait=10,
        backoff_base=0.5,
        sleep=sleeps.append,
    ) as c:
        yield c


def test_clients_share_one_verifying_context(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The CA bundle is loaded once per process and trust setting (~40 ms each time): every
    client verifies with that one context; another ``SSL_CERT_FILE`` gets a context of its own."""
    import ssl

    import certifi

    def context_of(client: GitHubClient) -> ssl.SSLContext:
        pool = client._http._transport._pool  # type: ignore[attr-defined]
        found: ssl.SSLContext = pool._ssl_context
        return found

    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    shared = tls_context()
    assert shared.verify_mode == ssl.CERT_REQUIRED and shared.check_hostname
    with (
        GitHubClient(token=None, repository="o/r") as one,
        GitHubClient(token=None, repository="o/r", api_url="https://ghe.example/api/v3") as two,
    ):
        assert context_of(one) is shared and context_of(two) is shared
    bundle = tmp_path / "ca.pem"
    bundle.write_bytes(Path(certifi.where()).read_bytes())
    monkeypatch.setenv("SSL_CERT_FILE", str(bundle))
    with GitHubClient(token=None, repository="o/r") as other:
        assert context_of(other) is tls_context() and context_of(other) is not shared
        assert context_of(other).verify_mode == ssl.CERT_REQUIRED


def test_headers_and_link_pagination(fake: FakeGitHub, client: GitHubClient) -> None:
    for i in range(5):
        fake.add_comment(7, user="u", body=f"c{i}")
    bodies = [c["body"] for c in client.issue_comments(7)]
    assert bodies == [f"c{i}" for i in range(5)]
    gets = fake.sent("GET", r"/issues/7/comments$")
    assert len(gets) == 3  # pages of 2 followed through the Link header
    assert all(r.headers["X-Github-Api-Version"] == API_VERSION for r in gets)
    assert all(r.headers["Accept"] == "application/vnd.github+json" for r in gets)


def test_5xx_is_retried_with_bounded_backoff(
    fake: FakeGitHub, client: GitHubClient, sleeps: list[float]
) -> None:
    fake.add_pull(1, author="a", head_sha="a" * 40)
    fake.fail_next("GET", r"/pulls/1$", 502, times=2)
    assert client.get_pull(1)["number"] == 1
    assert sleeps == [0.5, 1.0]


def test_persistent_5xx_gives_up_with_a_clear_error(
    fake: FakeGitHub, client: GitHubClient, sleeps: list[float]
) -> None:
    fake.fail_next("GET", r"/pulls/1$", 503, times=10)
    with pytest.raises(GitHubAPIError) as info:
        client.get_pull(1)
    assert "server error (HTTP 503)" in str(info.value)
    assert "gave up after 4 attempts" in str(info.value)
    assert len(sleeps) == 3 and max(sleeps) <= 10
    assert TOKEN not in str(info.value)


@pytest.mark.parametrize("status", [403, 429])
def test_retry_after_is_honoured(
    fake: FakeGitHub, client: GitHubClient, sleeps: list[float], status: int
) -> None:
    fake.roles["bob"] = "maintain"
    fake.fail_next("GET", r"/permission$", status, headers={"retry-after": "3"})
    assert client.permission("bob") is Permission.MAINTAIN
    assert sleeps == [3.0]


def test_rate_limit_reset_is_honoured(
    fake: FakeGitHub, client: GitHubClient, sleeps: list[float]
) -> None:
    reset = str(int(time.time()) + 4)
    fake.fail_next(
        "GET",
        r"/permission$",
        403,
        headers={"x-ratelimit-remaining": "0", "x-ratelimit-reset": reset},
    )
    assert client.permission("nobody") is Permission.NONE
    assert len(sleeps) == 1 and 2 <= sleeps[0] <= 6


def test_a_wait_beyond_the_limit_fails_fast(
    fake: FakeGitHub, client: GitHubClient, sleeps: list[float]
) -> None:
    fake.fail_next("GET", r"/pulls/1$", 429, headers={"retry-after": "3600"})
    with pytest.raises(GitHubAPIError, match="exceeds the limit"):
        client.get_pull(1)
    assert sleeps == []


def test_plain_403_is_not_retried_and_hints_at_permissions(
    fake: FakeGitHub, client: GitHubClient, sleeps: list[float]
) -> None:
    fake.fail_next("POST", r"/statuses/", 403)
    with pytest.raises(GitHubAPIError) as info:
        client.set_status("a" * 40, state="pending", description="d", context="c")
    assert info.value.status == 403 and "permissions" in str(info.value)
    assert sleeps == []


def test_timeouts_are_retried_then_reported(fake: FakeGitHub, sleeps: list[float]) -> None:
    def slow() -> Response:
        time.sleep(0.6)
        return Response("{}", status=200, content_type="application/json")

    for _ in range(3):
        fake.faults.append(("GET", r"/pulls/9$", slow))
    with (
        GitHubClient(
            token=TOKEN,
            repository=fake.repo,
            api_url=fake.url,
            timeout=0.2,
            max_retries=2,
            max_wait=5,
            backoff_base=0.01,
            sleep=sleeps.append,
        ) as c,
        pytest.raises(GitHubAPIError) as info,
    ):
        c.get_pull(9)
    assert "timed out" in str(info.value) and "gave up after 3 attempts" in str(info.value)


def test_non_idempotent_post_is_not_blindly_retried(
    fake: FakeGitHub, client: GitHubClient, sleeps: list[float]
) -> None:
    fake.fail_next("POST", r"/issues/3/comments$", 502)
    with pytest.raises(GitHubAPIError, match="HTTP 502"):
        client.create_comment(3, "hello")
    assert sleeps == [] and not fake.bot_comments(3)  # no duplicate comment can result


def test_oversized_bodies_are_clipped_never_422(fake: FakeGitHub, client: GitHubClient) -> None:
    created = client.create_comment(3, "x" * 100_000)
    assert len(created["body"]) <= 65_536 and "truncated" in created["body"]
    assert clip_body("short") == "short"


def test_links_to_other_hosts_are_refused(client: GitHubClient) -> None:
    with pytest.raises(GitHubAPIError, match="another host"):
        client.request("GET", "https://evil.example.com/steal")


def test_missing_comment_and_non_collaborator(client: GitHubClient) -> None:
    assert client.get_comment(424242) is None
    assert client.permission("stranger") is Permission.NONE
    assert client.authenticated_login() is None  # installation tokens cannot call GET /user


def test_bad_credentials_are_reported_without_the_token(fake: FakeGitHub) -> None:
    with (
        GitHubClient(
            token="wrong-token-value", repository=fake.repo, api_url=fake.url, max_retries=0
        ) as c,
        pytest.raises(GitHubAPIError) as info,
    ):
        c.get_pull(1)
    assert "HTTP 401 Bad credentials" in str(info.value)
    assert "wrong-token-value" not in str(info.value)
