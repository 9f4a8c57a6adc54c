"""Who owns a project: whose approval counts for its plan, besides the repository permission.

The owners are the base branch's, never the pull request's (a pull request that edits
CODEOWNERS or the config cannot make its author an owner): the ``policy.owners`` list of the
project's config as of the base commit (:mod:`averos_ci.review.trust` has loaded it into
``ctx.policy``), else the CODEOWNERS entry for the project's folder at the base commit.

CODEOWNERS is GitHub's: the first of ``.github/CODEOWNERS``, ``CODEOWNERS``,
``docs/CODEOWNERS`` that exists; the last pattern matching the project's config file
(``apps/p01/averos.config.json``) wins; a matching pattern without owners means no owners.
Users (``@login``) are checked by login; a team (``@org/team``) or an e-mail address cannot be
resolved without more permissions than a workflow token has: it is named, never matched.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from averos_ci._markdown import code, escape
from averos_ci.errors import ConfigError
from averos_ci.forge.context import FlowContext

CODEOWNERS_PATHS = (".github/CODEOWNERS", "CODEOWNERS", "docs/CODEOWNERS")
_LOGIN = re.compile(r"@[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})")


@dataclass(frozen=True)
class Owners:
    """A project's owners as written (``@alice``, ``@org/team``, ``a@example.com``) and where."""

    project: str
    names: tuple[str, ...]
    source: str  # "policy.owners" or ".github/CODEOWNERS line 4"

    @property
    def users(self) -> frozenset[str]:
        """Lower-cased logins of the users named (GitHub logins are case-insensitive)."""
        return frozenset(n[1:].lower() for n in self.names if _LOGIN.fullmatch(n))

    @property
    def unresolved(self) -> tuple[str, ...]:
        """Teams and e-mail addresses: named, never matched."""
        return tuple(n for n in self.names if not _LOGIN.fullmatch(n))

    def shown(self) -> str:
        """The owners for a comment: escaped, so that nobody is pinged."""
        return ", ".join(escape(n) for n in self.names) or "nobody"

    def refusal(self, login: str) -> tuple[str, str] | None:
        """Why ``login``'s approval does not count for the project, and the hint (markdown)
        (``None``: an owner)."""
        if login.lower() in self.users:
            return None
        teams = (
            f"; {', '.join(self.unresolved)} cannot be resolved (a team or an e-mail address: "
            "averos-ci does not read team membership)"
            if self.unresolved
            else ""
        )
        return (
            f"@{login} is not an owner of project {self.project} (owners from the base "
            f"branch's {self.source}: {', '.join(self.names)}{teams})",
            f"An owner must approve: {self.shown()}. The owners are read from the base branch; "
            "a pull request that changes them takes effect after it is merged."
            + (
                f" List the members of {', '.join(escape(u) for u in self.unresolved)} in "
                f"the project's {code('policy.owners')}."
                if self.unresolved
                else ""
            ),
        )

    def awaited(self) -> str:
        """The comment's words for whose approval is missing."""
        return f"an owner of {code(self.project)} ({self.shown()}, from {escape(self.source)})"


def project_owners(ctx: FlowContext, base_sha: str | None) -> Owners | None:
    """The owners of ``ctx``'s project at ``base_sha`` (``None``: no owners defined, anyone
    with the permission approves). Call after :func:`averos_ci.review.trust.trust_base`."""
    listed = ctx.policy.owners
    if listed:
        return Owners(ctx.project, tuple(_with_at(n) for n in listed), "policy.owners")
    if not (base_sha and base_sha.strip("0")):
        return None
    config = ctx.config.config_path
    if config is None:
        return None
    try:
        target = config.resolve().relative_to(ctx.repo_root.resolve()).as_posix()
    except ValueError:
        raise ConfigError("the config file is outside the repository", path=config) from None
    sb = ctx.state_branch()
    for path in CODEOWNERS_PATHS:
        raw = sb.read_commit_file(base_sha, path)
        if raw is not None:
            found = owners_of(raw.decode("utf-8", errors="replace"), target)
            if found is None or not found[1]:
                return None
            line, names = found
            return Owners(ctx.project, names, f"{path} line {line}")
    return None


def _with_at(name: str) -> str:
    return name if "@" in name else f"@{name}"


def owners_of(text: str, path: str) -> tuple[int, tuple[str, ...]] | None:
    """The line and owners of the last CODEOWNERS entry in ``text`` matching ``path`` (a file
    path from the repository root); ``None``: no entry matches. Lines GitHub rejects
    (``!`` negation, ``[ ]`` ranges) match nothing."""
    found: tuple[int, tuple[str, ...]] | None = None
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        pattern, *rest = line.split()
        owners: list[str] = []
        for word in rest:
            if word.startswith("#"):  # an inline comment
                break
            owners.append(word)
        if pattern.startswith("\\#"):
            pattern = pattern[1:]
        if pattern.startswith("!") or "[" in pattern or "]" in pattern:
            continue
        if _compile(pattern).fullmatch(path):
            found = (number, tuple(owners))
    return found


@lru_cache(maxsize=256)
def _compile(pattern: str) -> re.Pattern[str]:
    """gitignore's pattern rules as CODEOWNERS uses them: a ``/`` before the end anchors the
    pattern at the root; a trailing ``/`` matches a directory's contents; ``*`` and ``?`` stay
    within a path segment, ``**`` crosses them; a match of a directory covers what is in it,
    except after a final ``/*`` (``docs/*`` owns ``docs/a.md``, not ``docs/b/c.md``)."""
    directory = pattern.endswith("/")
    body = pattern.rstrip("/")
    anchored = "/" in body
    body = body.lstrip("/")
    out: list[str] = []
    i = 0
    while i < len(body):
        if body.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif body.startswith("**", i):
            out.append(".*")
            i += 2
        elif body[i] == "*":
            out.append("[^/]*")
            i += 1
        elif body[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(body[i]))
            i += 1
    prefix = "" if anchored else "(?:.*/)?"
    if directory:
        suffix = "/.*"
    elif body.endswith("/*") or body == "*":
        suffix = ""
    else:
        suffix = "(?:/.*)?"
    return re.compile(prefix + "".join(out) + suffix, re.DOTALL)
