"""Child processes of ``preview``: started in their own session (a Ctrl-C reaches averos-ci,
which stops them in order), stopped with SIGTERM and, after a grace period, SIGKILL."""

from __future__ import annotations

import socket
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path

from averos_ci.execute.adapters._env import scrubbed_env
from averos_ci.preview.errors import PreviewFailed

GRACE_S = 10.0


def start(cmd: Sequence[str], *, cwd: Path, log: Path) -> subprocess.Popen[bytes]:
    with log.open("wb") as out:
        try:
            return subprocess.Popen(
                list(cmd),
                cwd=cwd,
                env=scrubbed_env(),
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        except OSError as exc:
            raise PreviewFailed(f"`{' '.join(cmd)}` could not start: {exc}") from None


def stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout=GRACE_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def wait_port(port: int, proc: subprocess.Popen[bytes], *, deadline: float) -> bool:
    """True once something listens on 127.0.0.1:``port``; False if ``proc`` exits first or
    ``deadline`` (time.monotonic) passes."""
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            return False
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return True
        time.sleep(0.1)
    return False
