"""Staging folders of the template cache: removed when their builder ends, however it ends;
swept by the next build when their builder was killed — never while a process still uses one.

Real processes stand in for the builder (a Python process building in a staging folder) and
for its `npm ci` (a `sleep` started the way the build starts commands)."""

from __future__ import annotations

import fcntl
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from averos_ci.execute.adapters.angular.options import AngularOptions
from averos_ci.execute.adapters.angular.template import cache
from averos_ci.execute.adapters.angular.template.staging import (
    LOCK_FILE,
    TRASH_PREFIX,
    UNLOCKED_STALE_S,
    staging_folder,
    sweep,
)
from tests.conftest import REPO_ROOT
from tests.execute.adapters.angular.test_angular_pinned import _spec
from tests.processes import gone_within, running
from tests.scenarios.crash.procs import cmdline, descendants

HANG_GUARD_S = 60

# A builder: stages a folder, prints its path, runs a long command in it (as `npm ci` runs), the
# command found through the PATH given.
BUILDER = """
import sys
from pathlib import Path
from averos_ci.execute.adapters.angular import _proc
from averos_ci.execute.adapters.angular.template.staging import staging_folder

with staging_folder(Path(sys.argv[1]), prefix=".App-1.tmp-") as path:
    print(path, flush=True)
    _proc.run(["sleep", "600"], cwd=path, env={"PATH": sys.argv[2]}, timeout=600)
"""
PATH = "/usr/bin:/bin"
# The forked command tries each folder of its PATH in turn before `sleep` starts, while its
# builder waits in Popen (vfork): 60,000 missing folders ("0", relative to the new staging
# folder, which holds only its lock file) keep it there for about 0.2 s (more under load), in
# which a signal sent as soon as the command is forked reaches the builder while the command
# is being started.
SLOW_START_PATH = ":".join(["0"] * 60_000 + [PATH])


def _start_builder(
    parent: Path, *, path: str = PATH, started: bool = True
) -> tuple[subprocess.Popen[str], Path, int]:
    """The builder, its staging folder and its command's pid: once the command runs (once it
    is forked, when not ``started``)."""
    proc = subprocess.Popen(
        [sys.executable, "-c", BUILDER, str(parent), path],
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert proc.stdout is not None
    staged = Path(proc.stdout.readline().strip())  # ready: its Ctrl-C handler is Python's
    deadline = time.monotonic() + HANG_GUARD_S
    if not started:  # as soon as it is forked: its builder's children, read in one file
        children = Path(f"/proc/{proc.pid}/task/{proc.pid}/children")
        while not (forked := children.read_text().split()):
            assert proc.poll() is None and time.monotonic() < deadline
        return proc, staged, int(forked[0])
    while not (found := descendants(proc.pid)) or not _runs_sleep(found):
        assert proc.poll() is None and time.monotonic() < deadline
        time.sleep(0.02)
    return proc, staged, found.pop()


def _runs_sleep(pids: set[int]) -> bool:
    return any(cmdline(pid) == "sleep 600" for pid in pids)


@pytest.mark.parametrize("started", [True, False], ids=["running", "starting"])
def test_ctrl_c_of_a_builder_ends_its_command_and_removes_its_folder(
    tmp_path: Path, started: bool
) -> None:
    """Ctrl-C of a builder whose command runs, or is being started (its pid not known to the
    builder yet: a Ctrl-C that lost it left the command running in its own process group)."""
    path = PATH if started else SLOW_START_PATH
    proc, staged, command = _start_builder(tmp_path, path=path, started=started)
    assert staged.is_dir() and staged.parent == tmp_path
    proc.send_signal(signal.SIGINT)  # no handler: KeyboardInterrupt in the waiting builder
    proc.wait(timeout=HANG_GUARD_S)
    assert not running(command), "the command outlived its builder"
    assert list(tmp_path.iterdir()) == []


def test_a_killed_builders_folder_is_swept_once_its_command_has_ended(tmp_path: Path) -> None:
    proc, staged, command = _start_builder(tmp_path)
    try:
        proc.kill()  # SIGKILL: no clean-up at all; the command (its own group) runs on
        proc.wait()
        assert running(command)
        # the command inherited the folder's lock: it is still in use
        assert sweep(tmp_path) == [] and staged.is_dir()
    finally:
        os.killpg(command, signal.SIGKILL)
    assert gone_within(command, HANG_GUARD_S)
    assert sweep(tmp_path) == [staged]
    assert list(tmp_path.iterdir()) == []


def test_a_new_build_sweeps_stale_folders_and_only_those(tmp_path: Path) -> None:
    stale = tmp_path / ".App-1.tmp-stale"  # its builder and commands are gone
    stale.mkdir()
    (stale / LOCK_FILE).touch()
    (stale / "workspace").mkdir()
    held = tmp_path / ".App-1.tmp-held"  # locked by a live builder (this test)
    held.mkdir()
    lock = os.open(held / LOCK_FILE, os.O_RDWR | os.O_CREAT)
    fcntl.flock(lock, fcntl.LOCK_EX)
    fresh = tmp_path / ".App-2.tmp-fresh"  # made this instant, not locked yet
    fresh.mkdir()
    old = tmp_path / ".App-2.tmp-old"  # an earlier averos-ci's (no lock), long abandoned
    old.mkdir()
    long_ago = time.time() - UNLOCKED_STALE_S - 60
    os.utime(old, (long_ago, long_ago))
    cut_short = tmp_path / f"{TRASH_PREFIX}0123"  # a removal cut short: its lock went first
    (cut_short / "workspace/node_modules").mkdir(parents=True)
    template = tmp_path / "App-1"  # a ready template
    template.mkdir()
    try:
        with staging_folder(tmp_path, prefix=".App-3.tmp-") as mine:
            left = sorted(p.name for p in tmp_path.iterdir())
            assert left == sorted([held.name, fresh.name, template.name, mine.name])
            assert sweep(tmp_path) == []  # one's own folder is in use too
    finally:
        os.close(lock)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([held.name, fresh.name, "App-1"])


def test_using_a_ready_template_sweeps_too(tmp_path: Path) -> None:
    """The build a killed run left unfinished may never run again: the template got ready."""
    spec = _spec(tmp_path, AngularOptions())
    ready = cache.template_dir(spec.cache_root, spec)
    (ready / "workspace").mkdir(parents=True)
    (ready / cache.READY).write_text("{}\n")
    stale = ready.parent / f".{ready.name}.tmp-killed"
    stale.mkdir()
    (stale / LOCK_FILE).touch()
    assert cache.ensure_template(spec.cache_root, spec) == ready / "workspace"
    assert sorted(ready.parent.iterdir()) == [ready]
