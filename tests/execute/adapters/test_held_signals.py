"""A Ctrl-C landing while averos-ci starts one of its long-lived helpers (the schematics
driver, a JSON-lines child) ends that helper too: the signal is held until the helper's
process group is live, then acts (it once landed inside ``Popen``, the pid was lost with it,
and the helper ran on in its own process group). And the held signals act in the order they
came, once released."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.conftest import REPO_ROOT
from tests.processes import running

HANG_GUARD_S = 60
PATH = "/usr/bin:/bin"
# 60,000 missing folders ahead of the real ones: the forked child tries each before `sleep`
# starts (about 0.2 s), while its parent waits inside Popen (see test_template_sweep.py)
SLOW_START_PATH = ":".join(["0"] * 60_000 + [PATH])

STARTER = """
import sys
from pathlib import Path
from averos_ci.execute.adapters._jsonlines import JsonLinesProcess

print("ready", flush=True)
JsonLinesProcess(["sleep", "600"], cwd=Path(sys.argv[1]), env={"PATH": sys.argv[2]},
                 stderr_log=None, label="the helper")
print("started", flush=True)
import time
time.sleep(600)
"""

ORDER = """
import os, signal
from averos_ci.execute.adapters._children import HeldSignals

seen = []
signal.signal(signal.SIGTERM, lambda signum, frame: seen.append("TERM"))
signal.signal(signal.SIGINT, lambda signum, frame: seen.append("INT"))
held = HeldSignals()
os.kill(os.getpid(), signal.SIGTERM)
os.kill(os.getpid(), signal.SIGINT)
print("held:", seen, flush=True)
held.release()
print("released:", seen, flush=True)
"""


def _python(code: str, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", code, *args],
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_ctrl_c_while_a_json_lines_helper_starts_ends_the_helper(tmp_path: Path) -> None:
    proc = _python(STARTER, str(tmp_path), SLOW_START_PATH)
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "ready"  # Python's Ctrl-C handler is in place
    children = Path(f"/proc/{proc.pid}/task/{proc.pid}/children")
    deadline = time.monotonic() + HANG_GUARD_S
    while not (forked := children.read_text().split()):  # the helper is being started
        assert proc.poll() is None and time.monotonic() < deadline
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=HANG_GUARD_S)
    assert proc.returncode != 0 and "KeyboardInterrupt" in err  # the interrupt acted
    assert not running(int(forked[0])), "the helper outlived averos-ci"


def test_held_signals_act_in_the_order_they_came_once_released() -> None:
    proc = _python(ORDER)
    out, err = proc.communicate(timeout=HANG_GUARD_S)
    assert proc.returncode == 0, err
    assert out.splitlines() == ["held: []", "released: ['TERM', 'INT']"]
