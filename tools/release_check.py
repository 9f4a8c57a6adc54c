"""Check a release tag against the version and the CHANGELOG; print the release notes.

    python tools/release_check.py v0.2.0 [--changelog CHANGELOG.md] [--version 0.2.0]

Exit 0 and the CHANGELOG section of that version on stdout (the GitHub release's notes) when
the tag is ``v<version>`` with ``version`` = ``averos_ci.__version__`` (the one place the
version lives; setuptools reads it for the wheel and ``averos-ci --version`` prints it) and
``CHANGELOG.md`` has a ``## [<version>]`` section that is not empty. Exit 2 with the reason
otherwise. Used by ``.github/workflows/release.yml`` and by the tests.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TAG_RE = re.compile(r"v(\d+)\.(\d+)\.(\d+)")


def package_version(root: Path = ROOT) -> str:
    """``__version__`` of averos_ci/__init__.py, read without importing the package."""
    tree = ast.parse((root / "averos_ci" / "__init__.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__version__" for t in node.targets
        ):
            value = ast.literal_eval(node.value)
            if isinstance(value, str):
                return value
    raise SystemExit("averos_ci/__init__.py has no __version__ string")


def changelog_section(text: str, version: str) -> str | None:
    """The body under ``## [<version>]`` (up to the next ``## ``), or ``None``."""
    head = re.compile(rf"^## \[{re.escape(version)}\][^\n]*$", re.MULTILINE)
    match = head.search(text)
    if match is None:
        return None
    rest = text[match.end() :]
    end = re.search(r"^## ", rest, re.MULTILINE)
    return rest[: end.start() if end else len(rest)].strip()


def check(tag: str, *, version: str, changelog: str) -> str:
    """The release notes for ``tag``; raises ``ValueError`` with the reason."""
    if not TAG_RE.fullmatch(tag):
        raise ValueError(f"tag {tag!r} is not vMAJOR.MINOR.PATCH")
    if tag != f"v{version}":
        raise ValueError(
            f"tag {tag} does not match the package version {version} "
            "(averos_ci/__init__.py __version__)"
        )
    notes = changelog_section(changelog, version)
    if not notes:
        raise ValueError(
            f"CHANGELOG.md has no (or an empty) '## [{version}]' section: rename "
            "'## [Unreleased]' to it in the release commit"
        )
    return notes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tag")
    parser.add_argument("--changelog", type=Path, default=ROOT / "CHANGELOG.md")
    parser.add_argument("--version", dest="version", default=None)
    args = parser.parse_args(argv)
    try:
        notes = check(
            args.tag,
            version=args.version or package_version(),
            changelog=args.changelog.read_text(encoding="utf-8"),
        )
    except (ValueError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(notes)
    return 0


if __name__ == "__main__":
    sys.exit(main())
