"""Where averos-ci comes from, and the pre-commit entry merged into a user's file."""

from __future__ import annotations

import pytest

from averos_ci.onboard import precommit
from averos_ci.onboard.pins import action_repository, github_slug
from averos_ci.onboard.precommit import merge


@pytest.mark.parametrize(
    ("url", "slug"),
    [
        ("https://github.com/acme/averos-ci", "acme/averos-ci"),
        ("git+https://github.com/acme/averos-ci.git@v0.1.0", "acme/averos-ci"),
        ("git@github.com:acme/averos-ci.git", "acme/averos-ci"),
        ("https://gitlab.com/acme/averos-ci", None),
        ("file:///work/averos-ci", None),
        (None, None),
    ],
)
def test_github_slug(url: str | None, slug: str | None) -> None:
    assert github_slug(url) == slug


def test_action_repository_checks_what_it_is_given() -> None:
    assert action_repository("acme/averos-ci") == "acme/averos-ci"
    for bad in ("acme", "acme/averos-ci/x", "-x/y", "acme/x.git"):
        with pytest.raises(Exception, match="is not a GitHub repository"):
            action_repository(bad)


URL, REV = "https://github.com/acme/averos-ci", "v0.1.0"


def test_the_entry_goes_into_repos_even_when_another_key_follows() -> None:
    text = "repos:\n  - repo: local\n    hooks:\n      - id: x\nci:\n  autofix: false\n"
    merged = merge(text, repo_url=URL, rev=REV, force=False)
    assert merged.differs is None
    assert merged.text.endswith("ci:\n  autofix: false\n")
    assert "  - repo: https://github.com/acme/averos-ci\n    rev: v0.1.0\n" in merged.text
    assert merge(merged.text, repo_url=URL, rev=REV, force=False).text == merged.text


def test_a_file_that_is_not_a_pre_commit_config_is_a_conflict() -> None:
    assert merge("repos: [\n", repo_url=URL, rev=REV, force=True).differs is not None
    assert "no 'repos' list" in str(merge("a: 1\n", repo_url=URL, rev=REV, force=True).differs)
    assert merge("", repo_url=URL, rev=REV, force=False).text.startswith("repos:\n")
    assert precommit.PATH == ".pre-commit-config.yaml"
