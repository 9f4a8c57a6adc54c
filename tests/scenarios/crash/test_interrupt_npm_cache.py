"""A first generation interrupted during the template's `npm ci` loses its staging folder, but not
what npm fetched: npm's download cache is averos-ci's (``<cache dir>/npm``, from
``_proc.tool_env``), outside the staging folder, so the resumed build's `npm ci` — in a new
staging folder — takes those tarballs from there and fetches only the rest (issue 38).

Real npm, a registry stand-in on 127.0.0.1 (:mod:`.serving_registry`) and the product's own
pieces: a child Python process stages a folder, copies a project's ``package.json`` and lock
into it and runs `npm ci` through ``_proc.run`` with ``tool_env`` and the template build's npm
options, as ``template.pinned`` does. The first run asks for every tarball; the stand-in serves
all but one and holds that one, so npm certainly still runs when the child gets its SIGINT.
The signal is sent once npm has stored the tarballs it got (its cache's index names them): what
the test checks is what the interrupt leaves of the cache, not whether npm was quicker than it.

The test fails if the cache did not survive: with npm's cache inside the staging folder (removed
on the interrupt) or in a throw-away place (``tool_env`` without ``npm_config_cache``, the
default ``~/.npm`` on a runner whose home is fresh each job, or a cache dir not kept), the
second `npm ci` would have nothing to take the tarballs from and would ask the stand-in for
every one of them again.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT, require_tool
from tests.processes import running
from tests.scenarios.crash.procs import cmdline, descendants
from tests.scenarios.crash.serving_registry import ServingRegistry, make_package

# npm only (no Angular CLI): `require_tool` skips it, or fails it under CI, where npm is missing
pytestmark = pytest.mark.slow

HANG_GUARD_S = 60  # only a hung or crashed `npm ci` gets near it
PACKAGES = ("averos-probe-a", "averos-probe-b", "averos-probe-c")
HELD = PACKAGES[-1]

# The template build's `npm ci`, in a staging folder of ``parent`` (removed however it ends).
BUILDER = """
import shutil
import sys
from pathlib import Path
from averos_ci.execute.adapters.angular import _proc
from averos_ci.execute.adapters.angular.template.pinned import NPM_CI, NPM_FAST_ENV
from averos_ci.execute.adapters.angular.template.staging import staging_folder

project, parent, cache, registry, npm = sys.argv[1:]
with staging_folder(Path(parent), prefix=".App-1.tmp-") as path:
    for name in ("package.json", "package-lock.json"):
        shutil.copyfile(Path(project) / name, path / name)
    print(path, flush=True)
    env = {**_proc.tool_env(Path(cache), registry=registry), **NPM_FAST_ENV}
    _proc.run([npm, *NPM_CI], cwd=path, env=env, timeout=120)
"""


@pytest.fixture
def registry() -> Iterator[ServingRegistry]:
    packages = [make_package(name) for name in PACKAGES]
    with ServingRegistry(packages, hold={HELD}).serving() as served:
        yield served


def test_a_resumed_npm_ci_reuses_what_the_interrupted_one_fetched(
    tmp_path: Path, registry: ServingRegistry
) -> None:
    npm = require_tool("npm", install="Node.js 18+ with npm")
    project = tmp_path / "project"
    project.mkdir()
    _write_json(project / "package.json", registry.package_json("app"))
    _write_json(project / "package-lock.json", registry.lock_file("app"))
    templates = tmp_path / "templates"
    templates.mkdir()
    cache = tmp_path / "cache"  # averos-ci's cache dir, kept across runs
    tarball = {name: registry.packages[name].tarball_path for name in PACKAGES}
    fetched = [registry.packages[name] for name in PACKAGES if name != HELD]

    first = _start_builder(project, templates, cache, registry, npm)
    started: dict[int, str] = {}  # pid: command line
    try:
        # npm has fetched and stored every tarball but the held one, and waits for that one
        _wait_for(registry.held_asked.is_set, first, "npm ci asks for the held tarball")
        urls = [registry.tarball_url(package) for package in fetched]
        _wait_for(lambda: all(_cached(cache, url) for url in urls), first, "npm stores the rest")
        started = {pid: cmdline(pid) for pid in descendants(first.pid)}
        first.send_signal(signal.SIGINT)
        _, said = first.communicate(timeout=HANG_GUARD_S)
        left = [pid for pid in started if running(pid)]
    finally:
        _end(first, started)
    assert first.returncode == -signal.SIGINT and "KeyboardInterrupt" in said, said
    assert any(line.startswith("npm ci") for line in started.values()), started
    assert left == [], f"npm outlived the interrupted build: {left}"
    assert list(templates.iterdir()) == [], "the staging folder was left behind"
    asked_first = registry.asked()
    assert set(tarball.values()) <= set(asked_first), asked_first
    assert tarball[HELD] not in registry.served()  # npm never got it

    registry.released.set()
    second = _start_builder(project, templates, cache, registry, npm)
    try:
        _, said = second.communicate(timeout=HANG_GUARD_S)
    finally:
        _end(second, {})
    assert second.returncode == 0, said
    asked_again = registry.asked()[len(asked_first) :]
    # only the tarball the interrupt cut short is fetched again; the others come from the cache
    assert [p for p in asked_again if p.endswith(".tgz")] == [tarball[HELD]], asked_again


def _start_builder(
    project: Path, templates: Path, cache: Path, registry: ServingRegistry, npm: str
) -> subprocess.Popen[str]:
    """The builder, once its staging folder is made (its Ctrl-C handler is Python's)."""
    args = [str(project), str(templates), str(cache), registry.url, npm]
    proc = subprocess.Popen(
        [sys.executable, "-c", BUILDER, *args],
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    assert proc.stdout.readline().strip(), "the builder staged no folder"
    return proc


def _cached(cache: Path, url: str) -> bool:
    """Has npm stored the answer for ``url`` in the cache (its index names the request)?"""
    index = cache / "npm" / "_cacache" / "index-v5"
    for bucket in index.rglob("*"):
        with contextlib.suppress(OSError):
            if bucket.is_file() and url in bucket.read_text(encoding="utf-8", errors="replace"):
                return True
    return False


def _end(proc: subprocess.Popen[str], started: dict[int, str]) -> None:
    """A failed test must not leave a builder or an `npm ci` running."""
    if proc.poll() is None:
        proc.kill()
        proc.communicate()
    for pid, line in started.items():
        if running(pid) and cmdline(pid) == line:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


def _wait_for(condition: Callable[[], bool], proc: subprocess.Popen[str], what: str) -> None:
    deadline = time.monotonic() + HANG_GUARD_S
    while not condition():
        assert proc.poll() is None, f"the builder ended before {what}"
        assert time.monotonic() < deadline, f"hang guard: waiting until {what}"
        time.sleep(0.05)


def _write_json(path: Path, document: object) -> None:
    path.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
