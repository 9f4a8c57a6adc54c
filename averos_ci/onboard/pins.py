"""What a user's repository pins: the release tag of this averos-ci and the action's home.

The example workflows all run the local action ``./.github/actions/averos-ci``, whose one
``uses:`` line names ``your-org/averos-ci`` — the placeholder, explained in docs/how-to/setup.md.
``averos-ci init`` replaces it with the repository averos-ci was installed from (pip records it,
PEP 610 ``direct_url.json``) or the one given with ``--action-repo``.
"""

from __future__ import annotations

import json
import re
from importlib import metadata
from urllib.parse import urlsplit

from averos_ci import __version__
from averos_ci.errors import InputError

PLACEHOLDER_REPO = "your-org/averos-ci"
RELEASE_TAG = f"v{__version__}"  # immutable; the moving v0 is not what a setup should pin
_SLUG = re.compile(r"[A-Za-z0-9][A-Za-z0-9-]{0,38}/[A-Za-z0-9._-]{1,100}")


def action_repository(given: str | None) -> str:
    """``owner/name`` of averos-ci on GitHub: ``given``, else where pip installed it from."""
    if given is not None:
        if not _SLUG.fullmatch(given) or given.endswith((".git", ".")):
            raise InputError(
                f"--action-repo {given!r} is not a GitHub repository 'owner/name'",
                hint="e.g. --action-repo my-org/averos-ci (where you install averos-ci from)",
            )
        return given
    found = installed_from()
    if found is None:
        raise InputError(
            "cannot tell which GitHub repository averos-ci comes from (it was not installed "
            "from a github.com URL)",
            hint="pass --action-repo owner/averos-ci: the workflows use that repository's "
            f"action at {RELEASE_TAG} and the pre-commit hook its tag",
        )
    return found


def installed_from() -> str | None:
    """``owner/name`` when this distribution was pip-installed from a github.com git URL."""
    try:
        text = metadata.distribution("averos-ci").read_text("direct_url.json")
    except metadata.PackageNotFoundError:
        return None
    return github_slug(_url(text)) if text else None


def github_slug(url: str | None) -> str | None:
    """``owner/name`` of an https or ssh github.com URL; ``None`` for anything else."""
    if not url:
        return None
    url = url.removeprefix("git+")
    if url.startswith("git@github.com:"):
        path = url.removeprefix("git@github.com:")
    else:
        parts = urlsplit(url)
        if parts.hostname != "github.com":
            return None
        path = parts.path.lstrip("/")
    slug = path.split("@")[0].removesuffix("/").removesuffix(".git")
    return slug if _SLUG.fullmatch(slug) else None


def _url(text: str) -> str | None:
    try:
        data = json.loads(text)
    except ValueError:
        return None
    url = data.get("url") if isinstance(data, dict) else None
    return url if isinstance(url, str) else None
