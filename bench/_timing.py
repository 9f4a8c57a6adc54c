"""Shared helpers for the benchmark scripts: wall time of fresh processes, medians."""

from __future__ import annotations

import os
import statistics
import subprocess
import time
from collections.abc import Sequence


def wall(
    cmd: Sequence[str],
    *,
    runs: int,
    env: dict[str, str] | None = None,
    cwd: str | None = None,
    expect: int | None = 0,
) -> float:
    """Median wall time (s) of ``cmd`` in a fresh process over ``runs`` runs."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, env=env, cwd=cwd, check=False)
        times.append(time.perf_counter() - start)
        if expect is not None and proc.returncode != expect:
            raise SystemExit(
                f"{' '.join(cmd)} exited {proc.returncode}:\n"
                f"{proc.stdout.decode()[-2000:]}\n{proc.stderr.decode()[-2000:]}"
            )
    return statistics.median(times)


BENCH_IDENTITY = {
    "GIT_AUTHOR_NAME": "averos-ci bench",
    "GIT_AUTHOR_EMAIL": "bench@averos-ci.invalid",
    "GIT_COMMITTER_NAME": "averos-ci bench",
    "GIT_COMMITTER_EMAIL": "bench@averos-ci.invalid",
}


def own_git_identity() -> None:
    """Give this process (and every git it starts) its own identity.

    A fresh machine has none (GitHub's runners have no ``user.name``), and the benches that
    build repositories commit: without this they stop with git's exit 128.
    """
    os.environ.update(BENCH_IDENTITY)
