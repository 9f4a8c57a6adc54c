"""What the browser tests share: the npm tools (playwright-core, json-server: the install of
``averos-ci preview``), Debian's Chromium, a free port, and tests/browser/drive.js run on a
scenario (what it can do is described at the top of drive.js).

The ``browser_tools`` fixture is defined here; a test module takes it with
``browser_tools = browser.browser_tools``.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.browser.tools import HERE as BROWSER_DIR
from tests.browser.tools import ensure_tools
from tests.conftest import unavailable

CHROMIUM = os.environ.get("AVEROS_CI_CHROMIUM", "/usr/bin/chromium")
DRIVE_JS = BROWSER_DIR / "drive.js"
LOGIN_JS = BROWSER_DIR / "login.js"


@pytest.fixture(scope="session")
def browser_tools(angular_template: Path, angular_cache_dir: Path) -> Path:
    """The folder whose node_modules holds playwright-core and json-server."""
    missing = [t for t in ("node", "npm", "npx") if shutil.which(t) is None]
    if not Path(CHROMIUM).is_file():
        missing.append(CHROMIUM)
    if missing:
        unavailable(f"the browser test needs {', '.join(missing)} (.ci/run installs them)")
    return ensure_tools(angular_cache_dir)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def drive(
    tools: Path, shots: Path, scenario: dict[str, Any], *, script: Path = DRIVE_JS
) -> dict[str, Any]:
    """Run drive.js (or ``script``, which speaks the same protocol) on ``scenario`` in
    headless Chromium; its result (fails the test when a step failed, naming the
    screenshots)."""
    shots.mkdir(parents=True, exist_ok=True)
    spec = shots / "scenario.json"
    spec.write_text(json.dumps({"shots": str(shots), "chromium": CHROMIUM, **scenario}))
    proc = subprocess.run(
        ["node", str(script), str(spec)],
        env={
            **os.environ,
            "NODE_PATH": str(tools / "node_modules"),
            # Chromium keeps a crash/cache dir under $HOME whatever --user-data-dir says
            "HOME": str(shots),
            "XDG_CONFIG_HOME": str(shots / ".config"),
            "XDG_CACHE_HOME": str(shots / ".cache"),
        },
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    try:
        result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    except (IndexError, ValueError):
        pytest.fail(f"drive.js printed no result ({proc.returncode}):\n{proc.stdout}{proc.stderr}")
    assert result["ok"], (
        f"{result.get('error')}\nat {result.get('url')}\nbackend: {result.get('backend')}\n"
        f"screenshots: {result.get('shots')}"
    )
    return result
