"""SIGINT while the Angular template workspace is built (its `npm ci` running) — during the
first `averos-ci run` of a project, or a `warm` of the cache: exit 130 and nothing left behind,
no staging folder in the cache, no npm process. In a run the first signal lets the run wind
down and says so while it waits; a second one aborts at once, with a line saying so.

The template cache is a folder of the test's own (the build starts from nothing). In a run npm's
download cache is the suite's, so nothing is downloaded, and the signal is sent as soon as
`npm ci` runs. A warm's `npm ci` asks a registry stand-in (:mod:`.held_registry`) that holds its
requests: the signal is sent once it has asked, so it lands while `npm ci` certainly runs (from
the suite's npm cache, a warm's `npm ci` could end before the signal was sent, and the warm
with it: exit 0).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT, copy_example
from tests.processes import running
from tests.scenarios.crash.held_registry import HeldRegistry
from tests.scenarios.crash.procs import cmdline, descendants, working_in

pytestmark = [pytest.mark.angular, pytest.mark.slow]

HANG_GUARD_S = 300  # only a hung or crashed run gets near it
RUN = [sys.executable, "-m", "averos_ci", "run", "--config=averos.config.json"]
WARM = [sys.executable, "-m", "averos_ci.execute.adapters.angular", "warm"]


@pytest.fixture
def cold_cache(tmp_path: Path, angular_template: Path, angular_cache_dir: Path) -> Path:
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / "npm").symlink_to(angular_cache_dir / "npm", target_is_directory=True)
    return cache


@pytest.fixture
def held_registry() -> Iterator[HeldRegistry]:
    with HeldRegistry().serving() as registry:
        yield registry


@pytest.mark.parametrize("signals", [1, 2], ids=["one-sigint", "two-sigints"])
def test_an_interrupted_first_run_leaves_nothing_behind(
    tmp_path: Path, cold_cache: Path, signals: int
) -> None:
    project = copy_example(tmp_path / "p")
    said = _interrupt_npm_ci(RUN, cwd=project, cache=cold_cache, signals=signals, tmp=tmp_path)
    assert "interrupted by SIGINT" in said and "--resume" in said
    assert "removing the unfinished template workspace" in said
    if signals == 1:  # the run winds down, and says what it waits for meanwhile
        assert "SIGINT: still stopping" in said and "waiting for npm ci" in said, said
    else:
        assert "SIGINT again: aborting now, abandoning the running nodes: ending npm ci" in said


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["sigint", "sigterm"])
def test_an_interrupted_warm_leaves_nothing_behind(
    tmp_path: Path, held_registry: HeldRegistry, sig: signal.Signals
) -> None:
    """SIGTERM cleans up as Ctrl-C does (the default SIGTERM skipped every cleanup and left
    npm running in its own group): the same for every averos-ci entry point."""
    cache = tmp_path / "cache"  # npm's download cache too: `npm ci` must ask the registry
    cache.mkdir()
    said = _interrupt_npm_ci(
        WARM, cwd=tmp_path, cache=cache, signals=1, tmp=tmp_path, sig=sig, registry=held_registry
    )
    assert said.strip() == "interrupted"  # no traceback


def _interrupt_npm_ci(
    command: list[str],
    *,
    cwd: Path,
    cache: Path,
    signals: int,
    tmp: Path,
    sig: signal.Signals = signal.SIGINT,
    registry: HeldRegistry | None = None,
) -> str:
    """Start ``command``, send SIGINT ``signals`` times once its `npm ci` runs (and, with a
    ``registry``, has asked it for a package); check that it exits 130 leaving no process and
    no folder in ``cache/templates``; return its stderr."""
    stderr_file = tmp / "stderr.txt"
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "AVEROS_CI_CACHE_DIR": str(cache)}
    if registry is not None:
        env["npm_config_registry"] = registry.url
    with stderr_file.open("w") as stderr:
        proc = subprocess.Popen(
            command, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=stderr, text=True
        )
    started: dict[int, str] = {}  # pid: command line
    try:
        if registry is not None:
            _wait_for(registry.asked.is_set, proc)
        npm = _wait_for_npm_ci(proc)
        started = {pid: cmdline(pid) for pid in descendants(proc.pid)}
        proc.send_signal(sig)
        if signals == 2:
            _wait_for(lambda: "SIGINT: stopping" in stderr_file.read_text(), proc)
            proc.send_signal(signal.SIGINT)
        proc.wait(timeout=HANG_GUARD_S)
        left = [p for p in started if running(p)]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for pid, line in started.items():  # a failed test must not leave a build running
            if running(pid) and cmdline(pid) == line:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
    said = stderr_file.read_text()
    assert proc.returncode == 130, said
    assert npm in started and left == [], f"processes of the build outlived it: {left}"
    templates = cache / "templates"
    assert working_in(templates) == []
    assert list(templates.iterdir()) == [], "the build's staging folder was left behind"
    return said


def _wait_for_npm_ci(proc: subprocess.Popen[str]) -> int:
    """The pid of the build's `npm ci`, once it runs."""
    found: list[int] = []

    def npm_ci() -> bool:
        found[:] = [p for p in descendants(proc.pid) if cmdline(p).startswith("npm ci")]
        return bool(found)

    _wait_for(npm_ci, proc)
    return found[0]


def _wait_for(condition: Callable[[], bool], proc: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + HANG_GUARD_S
    while not condition():
        assert proc.poll() is None, "it ended before the condition held"
        assert time.monotonic() < deadline, "hang guard"
        time.sleep(0.05)
