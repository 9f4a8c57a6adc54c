"""``averos-ci preview``: build the generated app, serve it with a mock backend, and show it
(a printed URL, ``--open``, or ``--screenshot DIR``). The app's source is never changed."""

from __future__ import annotations

import signal
import threading
import time
import webbrowser
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any, NoReturn

from averos_ci.config import load_config
from averos_ci.execute.adapters import NodeToolchain, node_toolchain
from averos_ci.execute.adapters.angular.options import AngularOptions, cache_root
from averos_ci.execute.adapters.angular.template.toolchain import find_toolchain
from averos_ci.manifest import load_manifest
from averos_ci.preview.app import GeneratedApp, read_app
from averos_ci.preview.backend import foreign_hosts, plan_servers, run_backend
from averos_ci.preview.build import BUILD_ARGS, build_app, output_dir
from averos_ci.preview.chromium import find_chromium
from averos_ci.preview.samples import sample_records
from averos_ci.preview.serve import serve_spa
from averos_ci.preview.shots import LOGIN, Browser, take_screenshots
from averos_ci.preview.tools import ensure_tools, tools_dir

DEFAULT_PORT = 4200


@dataclass(frozen=True)
class PreviewResult:
    url: str
    pages: list[dict[str, Any]]  # --screenshot: what pages.json holds per page


def _say(text: str) -> None:
    print(text, flush=True)


def preview(
    *,
    config: str | Path | None = None,
    port: int = DEFAULT_PORT,
    build: bool = True,
    screenshot: str | Path | None = None,
    open_browser: bool = False,
    chromium: str | Path | None = None,
) -> PreviewResult:
    """Build, serve and show the app the config's workspaceRoot holds.

    With ``screenshot`` the pages are captured and the servers stopped; otherwise this runs
    until interrupted (KeyboardInterrupt; SIGTERM is turned into one), then stops both servers.
    """
    browser_path = find_chromium(chromium) if screenshot is not None else None
    cfg = load_config(config)
    manifest, _warnings = load_manifest(cfg.manifest_path)
    app = read_app(cfg.workspace_root)
    _refuse_unresolved(app.workspace)
    # the adapter's own Node.js toolchain and cache, if it has one (raw adapterOptions)
    node = node_toolchain(cfg.adapter, cfg.adapter_options) or _default_node()
    cache = node.cache_dir
    toolchain = find_toolchain(node.min_node_version, cache_dir=cache)
    if not (tools_dir(cache) / "node_modules").is_dir():
        _say("preview: installing json-server, playwright-core and material-icons (first use)…")
    tools = ensure_tools(cache, npm=toolchain.npm, bin_dir=toolchain.bin_dir)
    folder = cfg.logs_dir / "preview"
    built = output_dir(app.workspace) if not build else None
    if built is None:
        log = folder / "build.log"
        _say(f"preview: building the app (npx {' '.join(BUILD_ARGS)}), log: {log}")
        started = time.monotonic()
        built = build_app(
            app.workspace, npx=toolchain.npx, cache=cache, log=log, bin_dir=toolchain.bin_dir
        )
        _say(f"preview: built in {time.monotonic() - started:.0f} s: {built}")
    application = manifest.get("application") or {}
    login = bool(application.get("enableAuthentication")) or app.guarded
    servers = plan_servers(app, sample_records(manifest), auth=login)
    foreign = foreign_hosts(app, auth=login)
    with run_backend(servers, folder=folder / "backend", tools=tools, node=toolchain.node) as be:
        for server in servers:
            rows = sum(len(r) for r in server.collections.values())
            _say(f"preview: mock backend (json-server, {rows} records): {', '.join(server.urls)}")
        _notes(app, login=login, auth_on=bool(application.get("enableAuthentication")))
        for host in foreign:
            _say(
                f"note: the app calls its backend at host {host!r}, which the mock backend "
                f"answers only as 127.0.0.1; the screenshots map {host!r} to it, a browser you "
                f"open needs a '127.0.0.1 {host}' line in /etc/hosts"
            )
        with serve_spa(built, port=port) as url:
            _say(f"preview: the app is at {url}")
            if screenshot is not None:
                assert browser_path is not None
                if not app.pages:
                    _say("note: the generated routes have no entity page (no use case)")
                shots = take_screenshots(
                    base_url=url,
                    pages=app.pages,
                    out_dir=Path(screenshot),
                    browser=Browser(chromium=browser_path, node=toolchain.node, tools=tools),
                    foreign_hosts=foreign,
                    login=login,
                )
                _say(f"preview: {len(shots)} screenshots and pages.json in {screenshot}")
                for page in shots:
                    if page.get("status") != "ok":  # too wide: flagged, not a failure
                        _say(f"note: {page.get('path')}: {page.get('reason')}")
                return PreviewResult(url, shots)
            if open_browser:
                webbrowser.open(url)
            _say("preview: Ctrl-C stops the app and the mock backend")
            _wait(be.check)


def _wait(check: Callable[[], None]) -> NoReturn:
    """Until Ctrl-C or SIGTERM (KeyboardInterrupt, exit 130), or a server exits (exit 1)."""
    try:
        with _sigterm_interrupts():
            while True:
                check()
                time.sleep(0.5)
    except KeyboardInterrupt:
        _say("preview: stopping the app and the mock backend")
        raise


def _default_node() -> NodeToolchain:
    """An adapter with no Node.js toolchain of its own: the generated app's defaults."""
    return NodeToolchain(cache_root(), AngularOptions().min_node_version)


def _notes(app: GeneratedApp, *, login: bool, auth_on: bool) -> None:
    if not login:
        return
    who = f"user {LOGIN['user']!r}, password {LOGIN['password']!r}"
    if not auth_on:
        _say(
            "note: the generated entity routes require a login (AuthenticationGuard) although "
            "the manifest says enableAuthentication: false; the stub login accepts any user "
            f"({who})"
        )
    else:
        _say(f"preview: the stub login at {app.be_url}/auth/login accepts any user ({who})")


@contextmanager
def _sigterm_interrupts() -> Iterator[None]:
    """SIGTERM ends the preview as Ctrl-C does (servers stopped, exit 130)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _refuse_unresolved(workspace: Path) -> None:
    """A workspace still holding conflict markers does not compile: say where, not build."""
    from averos_ci.execute.regen.markers import UnresolvedMarkers, find_markers, workspace_files

    found = find_markers(workspace, workspace_files(workspace))
    if found:
        raise UnresolvedMarkers.of(found, what="the app is not built")
