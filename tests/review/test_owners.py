"""CODEOWNERS as GitHub reads it (the examples of GitHub's own CODEOWNERS documentation): the
last matching pattern wins, a pattern without owners leaves a path without owners, ``docs/*``
does not reach into subfolders, and lines GitHub rejects match nothing. The flow's use of the
owners is tests/scenarios/github/test_gh_owners.py."""

from __future__ import annotations

import pytest

from averos_ci.errors import ConfigError
from averos_ci.policy.settings import load_policy
from averos_ci.review.owners import Owners, owners_of

GITHUB_EXAMPLE = """\
# These owners will be the default owners for everything in the repo.
*       @global-owner1 @global-owner2
*.js    @js-owner #This is an inline comment.
*.go docs@example.com
*.txt @octo-org/octocats
/build/logs/ @doctocat
docs/*  docs@example.com
apps/ @octocat
/docs/ @doctocat
/scripts/ @doctocat @octocat
**/logs @octocat
/apps/ @octocat
/apps/github
\\#not-a-comment @hash
!negated @nobody
[Rr]eadme.md @nobody
"""


@pytest.mark.parametrize(
    ("path", "line", "owners"),
    [
        ("README.md", 2, ("@global-owner1", "@global-owner2")),
        ("src/app.js", 3, ("@js-owner",)),  # the inline comment is not an owner
        ("main.go", 4, ("docs@example.com",)),
        ("build/logs/out.txt", 11, ("@octocat",)),  # /build/logs/ (6), then **/logs (11)
        ("scripts/run.sh", 10, ("@doctocat", "@octocat")),  # an anchored folder's contents
        ("docs/getting-started.md", 9, ("@doctocat",)),  # /docs/ comes after docs/*
        ("deeply/nested/logs/x", 11, ("@octocat",)),  # **/logs anywhere
        ("other/apps/x.ts", 8, ("@octocat",)),  # apps/ unanchored: any apps folder
        ("apps/web/x.ts", 12, ("@octocat",)),
        ("apps/github/x.ts", 13, ()),  # the last match has no owners
        ("#not-a-comment", 14, ("@hash",)),
        ("negated", 2, ("@global-owner1", "@global-owner2")),  # `!` is not supported
        ("Readme.md", 2, ("@global-owner1", "@global-owner2")),  # neither are `[ ]` ranges
    ],
)
def test_last_matching_pattern_wins(path: str, line: int, owners: tuple[str, ...]) -> None:
    assert owners_of(GITHUB_EXAMPLE, path) == (line, owners)


def test_star_slash_does_not_reach_subfolders() -> None:
    text = "docs/* @docs\n"
    assert owners_of(text, "docs/a.md") == (1, ("@docs",))
    assert owners_of(text, "docs/build-app/troubleshooting.md") is None
    assert owners_of("/apps/p01/ @a\n", "apps/p01/averos.config.json") == (1, ("@a",))
    assert owners_of("/apps/p01/ @a\n", "apps/p010/averos.config.json") is None
    assert owners_of("apps/**/averos.config.json @a\n", "apps/x/y/averos.config.json")


def test_users_match_by_login_teams_are_named_never_matched() -> None:
    owners = Owners("apps/p01", ("@Carol", "@acme/app-team", "x@example.com"), "CODEOWNERS line 3")
    assert owners.refusal("carol") is None  # logins are case-insensitive
    refused = owners.refusal("acme")
    assert refused is not None
    reason, hint = refused
    assert "@acme is not an owner of project apps/p01" in reason
    assert "@acme/app-team, x@example.com cannot be resolved" in reason
    assert "policy.owners" in hint and "@\u200bCarol" in hint  # shown, never pinged


def test_policy_owners_are_validated_with_their_location() -> None:
    assert load_policy({"owners": ["@alice", "bob", "@acme/app-team"]}, config_path=None).owners
    with pytest.raises(ConfigError, match="/policy/owners/0"):
        load_policy({"owners": ["not a login"]}, config_path=None)
