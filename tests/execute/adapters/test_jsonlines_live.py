"""An adapter's JSON-lines child (the schematics driver, a node-module adapter) is one of the
run's live commands while it runs: a second signal's ``end_all`` ends its process group at
once (no goodbye wait), and ``close`` takes it off the list."""

from __future__ import annotations

import sys
from pathlib import Path

from averos_ci.execute.adapters import _children as children
from averos_ci.execute.adapters._jsonlines import JsonLinesProcess

# A child that never answers and ignores its stdin closing: only a kill ends it.
STUBBORN = "import signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\ntime.sleep(600)\n"


def test_a_json_lines_child_is_live_until_closed_and_ended_by_end_all(tmp_path: Path) -> None:
    proc = JsonLinesProcess(
        [sys.executable, "-c", STUBBORN],
        cwd=tmp_path,
        env={"PATH": "/usr/bin:/bin"},
        stderr_log=None,
        label="the test driver",
    )
    try:
        assert "the test driver" in children.running()
        assert "the test driver" in children.end_all()
        assert proc._proc.poll() is not None  # ended by the group kill, not by close()
    finally:
        proc.close(wait_s=0.1)
    assert "the test driver" not in children.running()
