"""A helper left running by a killed run is ended by the next one, and only that one."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from averos_ci.execute.adapters import _children as children


def test_reap_ends_the_recorded_group(tmp_path: Path) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(120)", "driver.js"],
        start_new_session=True,
    )
    try:
        children.record(tmp_path, proc.pid, "driver.js")
        assert children.reap(tmp_path) is True
        assert proc.wait(timeout=10) != 0
        assert not (tmp_path / ".averos-ci").exists()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_reap_leaves_unrelated_processes_alone(tmp_path: Path) -> None:
    children.record(tmp_path, os.getpid(), "driver.js")  # our pid: no such marker in cmdline
    assert children.reap(tmp_path) is False
    assert children.reap(tmp_path) is False  # nothing recorded any more
