"""The version lives in one place and everything agrees with it; the release check refuses a
tag that does not match the version or a CHANGELOG without its section."""

from __future__ import annotations

import importlib.metadata
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from averos_ci import __version__
from averos_ci.cli import run_cli

ROOT = Path(__file__).resolve().parents[1]
CHECK = [sys.executable, str(ROOT / "tools" / "release_check.py")]


def release_check(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CHECK, *args], capture_output=True, text=True, timeout=60)


def test_the_version_has_one_source() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" not in project["project"] and "version" in project["project"]["dynamic"]
    attr = project["tool"]["setuptools"]["dynamic"]["version"]["attr"]
    assert attr == "averos_ci.__version__"
    assert importlib.metadata.version("averos-ci") == __version__  # the installed metadata


def test_version_output_and_changelog_agree(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"averos-ci {__version__}"
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    headings = [line for line in changelog.splitlines() if line.startswith("## ")]
    # Either the version was cut (its section is on top) or work since is under Unreleased.
    assert headings and (
        headings[0] == "## [Unreleased]" or headings[0].startswith(f"## [{__version__}]")
    )
    r = release_check(f"v{__version__}")
    released = any(h.startswith(f"## [{__version__}]") for h in headings)
    assert (r.returncode == 0) == released, r.stderr


def test_release_check_prints_the_notes_of_a_matching_tag(tmp_path: Path) -> None:
    changelog = tmp_path / "CHANGELOG.md"
    changelog.write_text(
        "# Changelog\n\n## [Unreleased]\n\n## [1.2.3] - 2026-12-01\n\n### Added\n- a thing\n\n"
        "## [1.2.2] - 2026-11-01\n\n- older\n",
        encoding="utf-8",
    )
    ok = release_check("v1.2.3", "--changelog", str(changelog), "--version", "1.2.3")
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout == "### Added\n- a thing\n"
    for tag, version, needle in (
        ("v1.2.4", "1.2.3", "does not match the package version"),
        ("1.2.3", "1.2.3", "is not vMAJOR.MINOR.PATCH"),
        ("v1.2.5", "1.2.5", "no (or an empty) '## [1.2.5]' section"),
    ):
        r = release_check(tag, "--changelog", str(changelog), "--version", version)
        assert r.returncode == 2 and needle in r.stderr, r.stderr


def test_release_workflow_runs_the_check_builds_and_moves_the_major_tag() -> None:
    text = (ROOT / ".github" / "workflows" / "release.yml").read_text(encoding="utf-8")
    for needle in (
        'tags: ["v[0-9]+.[0-9]+.[0-9]+"]',
        "python tools/release_check.py",
        "twine check --strict",
        "gh release create",
        'major="${TAG%%.*}"',
    ):
        assert needle in text, needle
