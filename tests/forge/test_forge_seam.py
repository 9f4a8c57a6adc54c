"""The forge seam: :class:`GitHubClient` is a :class:`Forge`, and the review rules reach GitHub
only through that protocol (never the REST client's module), so another forge can serve them."""

from __future__ import annotations

import ast
from pathlib import Path

from averos_ci.forge.api import GitHubClient
from averos_ci.forge.protocol import Forge
from tests.github.gh_fake import TOKEN, FakeGitHub, running_fake

REVIEW = Path(__file__).resolve().parents[2] / "averos_ci" / "review"


def test_the_github_client_is_a_forge() -> None:
    client = GitHubClient(token=TOKEN, repository="octo/app", api_url="http://127.0.0.1:9")
    with client:
        assert isinstance(client, Forge)


def test_the_endpoints_the_review_rules_use_answer_from_github() -> None:
    with running_fake() as fake:
        _ask(fake)


def _ask(fake: FakeGitHub) -> None:
    fake.add_pull(7, author="alice", head_sha="a" * 40)
    fake.add_pull(8, author="bob", head_sha="b" * 40)
    fake.add_status("a" * 40, by="bot", state="success", context="averos-ci/plan/app")
    forge: Forge = GitHubClient(token=TOKEN, repository=fake.repo, api_url=fake.url)
    assert sorted(pr["number"] for pr in forge.open_pull_requests()) == [7, 8]
    page = forge.combined_status_page("a" * 40, 1)
    assert [s["context"] for s in page["statuses"]] == ["averos-ci/plan/app"]
    assert forge.combined_status_page("a" * 40, 2)["statuses"] == []


def test_the_review_rules_never_import_the_rest_client() -> None:
    wrong = []
    for path in sorted(REVIEW.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = (
                [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else []
            )
            wrong += [f"{path.name}: {n}" for n in names if n.startswith("averos_ci.forge.api")]
    assert not wrong, wrong
