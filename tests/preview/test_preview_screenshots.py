"""``--screenshot`` shows the pages as a user sees them (issue 38 item 7), on the ToDo
example's build shared with the other real-Angular tests (tests/scenarios/angular/built.py),
in the suite's Chromium:

- the icons are drawn by the Material Icons font, served offline from the pinned npm package
  (before: the app asked Google Fonts, which the screenshot browser cannot reach, and every
  icon showed the first letters of its name, "sea", "vis", "de");
- each screenshot is the window's width (1280 px), the page's whole height, and a page wider
  than the window (here the search page of ToDoTask, made 3,000 px wide by a style added to
  the test's copy of the build) is flagged in pages.json with its width (before: a 3,000 px
  wide screenshot and "ok").

A second run without the font package is the control: the same measure then finds the icons
shown as words, so the first run's "none" is the font's doing.
"""

from __future__ import annotations

import json
import shutil
import struct
from pathlib import Path
from typing import Any

import pytest

from averos_ci.manifest import load_manifest
from averos_ci.preview import read_app, sample_records, serve_spa
from averos_ci.preview.app import Page
from averos_ci.preview.backend import plan_servers, run_backend
from averos_ci.preview.shots import Browser, take_screenshots
from tests.scenarios.angular import browser, built
from tests.scenarios.angular.browser import CHROMIUM

pytestmark = [pytest.mark.angular, pytest.mark.slow]

browser_tools = browser.browser_tools  # the shared fixtures
todo_build = built.todo_build
WIDE = "app-search-to-do-task-component"  # the ToDoTask search page's component
WIDE_STYLE = f"<style>{WIDE} {{ display: block; min-width: 3000px }}</style>"


def png_size(png: Path) -> tuple[int, int]:
    width, height = struct.unpack(">II", png.read_bytes()[16:24])  # the IHDR chunk
    return int(width), int(height)


def shoot(
    build: built.Built, served: Path, tools: Path, shots: Path, pages: tuple[Page, ...]
) -> dict[str, Any]:
    """take_screenshots with the app's mock backend running; pages.json."""
    app = read_app(build.workspace)
    manifest, _ = load_manifest(build.project / "todoapp.manifest.yaml")
    servers = plan_servers(app, sample_records(manifest), auth=False)
    with (
        run_backend(servers, folder=shots.parent / "backend", tools=tools, node="node"),
        serve_spa(served) as url,
    ):
        take_screenshots(
            base_url=url,
            pages=pages,
            out_dir=shots,
            browser=Browser(chromium=CHROMIUM, node="node", tools=tools),
            foreign_hosts=[],
            login=False,
        )
    document: dict[str, Any] = json.loads((shots / "pages.json").read_text(encoding="utf-8"))
    return document


@pytest.mark.xdist_group(built.TODO_GROUP)
def test_screenshots_draw_the_icons_at_the_window_width_and_flag_a_wide_page(
    browser_tools: Path, todo_build: built.Built, tmp_path: Path
) -> None:
    served = tmp_path / "served"  # the test's copy: the build itself stays as built
    shutil.copytree(todo_build.served, served)
    index = served / "index.html"
    html = index.read_text(encoding="utf-8")
    assert "fonts.googleapis.com/icon?family=Material+Icons" in html  # what the app asks for
    index.write_text(html.replace("</head>", WIDE_STYLE + "</head>"), encoding="utf-8")
    pages = read_app(todo_build.workspace).pages
    shots = tmp_path / "shots"

    document = shoot(todo_build, served, browser_tools, shots, pages)

    for page in document["pages"]:  # the window's width (before: 4,344 px for the wide one)
        width, height = png_size(shots / page["png"])
        assert width == 1280 and height >= 860, (page["png"], width, height)
    assert document["formatVersion"] == 2
    assert document["viewport"] == {"width": 1280, "height": 860}
    by_name = {p["name"]: p for p in document["pages"]}
    assert sorted(by_name) == sorted(p.name for p in pages) and len(pages) == 4
    for page in document["pages"]:
        assert page["icons"] >= 4 and page["iconsAsWords"] == [], page  # drawn by the font
    wide = by_name.pop("todotask-search")
    assert wide["status"] == "too-wide" and wide["width"] >= 3000, wide
    assert wide["reason"].startswith(
        f"the page is {wide['width']} px wide, wider than the 1280 px window"
    )
    assert "Amber name 1" in wide["text"]  # it rendered: flagged, not failed
    for page in by_name.values():
        assert page["status"] == "ok" and page["width"] == 1280 and "reason" not in page, page

    # the control: the same pages' icons with no icon font to serve are words
    bare = tmp_path / "tools-without-font" / "node_modules"
    bare.mkdir(parents=True)
    for entry in (browser_tools / "node_modules").iterdir():
        if entry.name != "material-icons":
            (bare / entry.name).symlink_to(entry)
    [create] = [p for p in pages if p.name == "todoarea-create"]
    control = shoot(todo_build, served, bare.parent, tmp_path / "control" / "shots", (create,))
    [page] = control["pages"]
    assert page["status"] == "ok"
    assert {"search", "help"} <= set(page["iconsAsWords"]), page
    assert len(page["iconsAsWords"]) == page["icons"] == by_name["todoarea-create"]["icons"]
