"""``--screenshot DIR``: one PNG per entity page and DIR/pages.json (what each page showed).

shoot.js drives headless Chromium through playwright-core; this module writes its spec, runs
it with a private $HOME (Chromium keeps crash and cache folders there whatever its profile
says) and turns its answer into pages.json and an exit code. Each page has a ``status``
(:class:`PageStatus`): a page that did not render fails the preview; one wider than the
browser window is flagged, with its width, and screenshot at the window's width.
"""

from __future__ import annotations

import json
import subprocess
import tempfile
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from averos_ci._fs import atomic_write_text
from averos_ci.execute.adapters._env import scrubbed_env
from averos_ci.preview.app import Page
from averos_ci.preview.errors import PreviewFailed

SHOOT_JS = Path(__file__).resolve().parent / "shoot.js"
PAGES_FORMAT_VERSION = 2  # 2: each page's "status" and "reason" for 1's "ok" and "error"
SHOOT_TIMEOUT_S = 1200
# The stub /auth endpoint takes any user; the login form wants a password of 8-32 characters.
LOGIN = {"user": "preview", "password": "preview-password"}


class PageStatus(StrEnum):
    """What pages.json says of a page (shoot.js decides it)."""

    OK = "ok"
    FAILED = "failed"  # no content: no form field, no record listed, blank, redirected
    TOO_WIDE = "too-wide"  # rendered, wider than the window: a user scrolls sideways


RENDERED = frozenset({PageStatus.OK, PageStatus.TOO_WIDE})  # the others fail the preview


@dataclass(frozen=True)
class Browser:
    chromium: str
    node: str
    tools: Path  # the folder whose node_modules holds playwright-core

    @property
    def icon_fonts(self) -> Path:
        """The Material Icons fonts and stylesheets the pages get instead of Google Fonts'."""
        return self.tools / "node_modules" / "material-icons" / "iconfont"


def take_screenshots(
    *,
    base_url: str,
    pages: tuple[Page, ...],
    out_dir: Path,
    browser: Browser,
    foreign_hosts: list[str],
    login: bool,
) -> list[dict[str, Any]]:
    """Screenshot ``pages``; write ``out_dir/pages.json``; PreviewFailed if a page failed."""
    out_dir = out_dir.resolve()
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="averos-ci-chromium-") as home:
        spec = Path(home) / "spec.json"
        spec.write_text(
            json.dumps(
                {
                    "baseUrl": base_url,
                    "chromium": browser.chromium,
                    "shots": str(out_dir),
                    "pages": [{"name": p.name, "kind": p.kind, "path": p.path} for p in pages],
                    "login": LOGIN if login else None,
                    "hostRules": ", ".join(f"MAP {h} 127.0.0.1" for h in foreign_hosts),
                    "allowHosts": ["127.0.0.1", "localhost", *foreign_hosts],
                    "iconFonts": str(browser.icon_fonts),
                }
            ),
            encoding="utf-8",
        )
        env = {
            **scrubbed_env(),
            "NODE_PATH": str(browser.tools / "node_modules"),
            "HOME": home,
            "XDG_CONFIG_HOME": str(Path(home) / ".config"),
            "XDG_CACHE_HOME": str(Path(home) / ".cache"),
        }
        try:
            proc = subprocess.run(
                [browser.node, str(SHOOT_JS), str(spec)],
                env=env,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
                timeout=SHOOT_TIMEOUT_S,
                check=False,
            )
        except subprocess.TimeoutExpired:
            raise PreviewFailed(f"the screenshots took longer than {SHOOT_TIMEOUT_S} s") from None
    result = _answer(proc)
    shots: list[dict[str, Any]] = result["pages"]
    document = {
        "formatVersion": PAGES_FORMAT_VERSION,
        "baseUrl": base_url,
        "loggedIn": result.get("loggedIn", False),
        "viewport": result.get("viewport"),
        "pages": shots,
        "errors": result.get("errors", []),
    }
    atomic_write_text(out_dir / "pages.json", json.dumps(document, indent=2) + "\n")
    failed = [p for p in shots if p.get("status") not in RENDERED]
    if failed:
        detail = "\n".join(f"  {p['path']}: {p.get('reason')}" for p in failed)
        raise PreviewFailed(
            f"{len(failed)} of {len(shots)} pages did not render:\n{detail}",
            path=out_dir / "pages.json",
            hint=f"see the screenshots in {out_dir}",
        )
    return shots


def _answer(proc: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    lines = proc.stdout.strip().splitlines()
    try:
        result: dict[str, Any] = json.loads(lines[-1])
    except (IndexError, ValueError):
        result = {"fatal": f"exit {proc.returncode}"}
    if "fatal" in result or not isinstance(result.get("pages"), list):
        raise PreviewFailed(
            f"headless Chromium failed: {result.get('fatal')}\n{proc.stderr[-2000:]}",
            hint="run with --chromium PATH to name another Chromium",
        )
    return result
