"""The dashboard in a real browser (the suite's Chromium through playwright-core, as the
other browser tests): served from 127.0.0.1, the project list, the stuck claim and the
drifted project are shown, a history page is reached by clicking a project's link, no script
runs and no request leaves 127.0.0.1."""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from averos_ci.dashboard import build_dashboard
from tests.browser.tools import ensure_tools
from tests.conftest import unavailable
from tests.dashboard.conftest import ATTACK, ATTACK_APPROVER, STUCK, StateWorld

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("dashboard")]

CHROMIUM = os.environ.get("AVEROS_CI_CHROMIUM", "/usr/bin/chromium")
BROWSE_JS = Path(__file__).resolve().parent / "browse.js"


@pytest.fixture(scope="session")
def playwright_tools() -> Path:
    """playwright-core, installed as `averos-ci preview` installs it (.ci/run does it first).
    Without Node.js or Chromium the test is skipped here and fails under CI."""
    missing = [t for t in ("node", "npm") if shutil.which(t) is None]
    if not Path(CHROMIUM).is_file():
        missing.append(CHROMIUM)
    if missing:
        unavailable(f"the browser test needs {', '.join(missing)} (.ci/run installs them)")
    # resolved with the real $HOME: a session fixture runs before the per-test one
    cache = os.environ.get("AVEROS_CI_CACHE_DIR") or str(Path.home() / ".cache" / "averos-ci")
    return ensure_tools(Path(cache).expanduser())


@pytest.fixture
def served(state_world: StateWorld, tmp_path: Path) -> Iterator[str]:
    site = tmp_path / "site"
    build_dashboard(state_world.clone, out=site)
    handler = functools.partial(_Quiet, directory=str(site))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


def _browse(tools: Path, shots: Path, scenario: dict[str, Any]) -> dict[str, Any]:
    shots.mkdir(parents=True, exist_ok=True)
    spec = shots / "scenario.json"
    spec.write_text(json.dumps({"shots": str(shots), "chromium": CHROMIUM, **scenario}))
    proc = subprocess.run(
        ["node", str(BROWSE_JS), str(spec)],
        env={
            **os.environ,
            "NODE_PATH": str(tools / "node_modules"),
            "HOME": str(shots),  # Chromium keeps a crash/cache folder under $HOME
            "XDG_CONFIG_HOME": str(shots / ".config"),
            "XDG_CACHE_HOME": str(shots / ".cache"),
        },
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    try:
        result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    except (IndexError, ValueError):
        pytest.fail(f"browse.js printed no result ({proc.returncode}):\n{proc.stdout}{proc.stderr}")
    assert result["ok"], f"{result.get('error')}\nscreenshots: {result.get('shots')}"
    return result


def test_dashboard_in_chromium_offline(playwright_tools: Path, served: str, tmp_path: Path) -> None:
    scenario = {"baseUrl": served, "project": "default"}
    result = _browse(playwright_tools, tmp_path / "shots", scenario)
    index, history = result["index"], result["history"]
    # the project list, with the stuck claim and the drifted project
    rows = {row[0]: row for row in index["rows"]}
    assert sorted(rows) == sorted(["default", STUCK, "reports", "search", ATTACK])
    assert "drifted" in rows["default"][1] and "apply failed" in rows["default"][1]
    assert "apply stuck" in rows[STUCK][1]
    assert "apply abandoned" in rows["reports"][1]
    claims = index["text"].split("Running and stuck applies")[1].split("Drift")[0]
    assert STUCK in claims and "stuck" in claims
    drift = index["text"].split("\nDrift\n")[1].split("Failures")[0]
    assert "default" in drift
    # markup from the branch is text on the page, and nothing ran
    assert ATTACK_APPROVER in rows[ATTACK][5]
    assert result["dialogs"] == [] and index["title"] == "averos-ci dashboard"
    assert index["headings"][0] == "H1 averos-ci dashboard"
    assert index["collapse"] == "collapse"  # style.css was loaded and applied
    # the history page, reached by the link
    assert history["url"].startswith(f"{served}/projects/default-")
    assert {"H2 Plans applied", "H2 State branch history"} <= set(history["headings"])
    applied = history["text"].split("Plans applied")[1].split("Apply in progress")[0]
    assert applied.count("apply") >= 2
    assert "src/app/todo-task.ts" in history["text"]
    # every request stayed on 127.0.0.1: the pages and the stylesheet, nothing else
    assert result["offsite"] == []
    assert result["requests"] and all(u.startswith(served + "/") for u in result["requests"])
    assert any(u.endswith("/style.css") for u in result["requests"])
