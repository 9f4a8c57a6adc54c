"""The README is a front page (issue 27): short, the two commands on top, and every link into
the manual lands on a page that exists, so GitHub never shows a dead link."""

from __future__ import annotations

import re

from tests.conftest import REPO_ROOT

README = REPO_ROOT / "README.md"
LINK = re.compile(r"\]\((?!https?://)([^)#\s]+)(?:#[^)\s]*)?\)")


def test_the_readme_is_at_most_250_lines() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 250, len(lines)


def test_the_two_commands_come_first_and_command_2_is_the_contributors() -> None:
    text = README.read_text(encoding="utf-8")
    first_heading = text.index("\n## ")
    assert text.index("<!-- newcomer:command-1") < text.index("bash .ci/run") < first_heading
    assert "contributors'" in text[:first_heading]


def test_every_relative_link_of_the_readme_names_a_file() -> None:
    targets = LINK.findall(README.read_text(encoding="utf-8"))
    assert "docs/tutorial/first-pull-request.md" in targets
    missing = [t for t in targets if not (REPO_ROOT / t).exists()]
    assert not missing, missing


def test_the_readme_flow_is_the_site_home_pages_which_the_mermaid_parser_checks() -> None:
    block = re.compile(r"^```mermaid\n(.*?)^```$", re.S | re.M)
    drawn = block.findall(README.read_text(encoding="utf-8"))
    home = block.findall((REPO_ROOT / "docs" / "index.md").read_text(encoding="utf-8"))
    assert drawn and all(d in home for d in drawn)  # tests/docs/test_diagrams.py parses home


def test_the_site_home_shows_the_readme_command_1_as_it_is() -> None:
    """The home page repeats command 1: it must be the README's, which the newcomer test runs."""
    marked = re.compile(r"<!-- newcomer:command-1[^>]*-->\n```bash\n(.*?)```\n", re.S)
    [command] = marked.findall(README.read_text(encoding="utf-8"))
    assert command in (REPO_ROOT / "docs" / "index.md").read_text(encoding="utf-8")
