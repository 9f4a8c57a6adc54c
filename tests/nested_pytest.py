"""A pytest run inside a test. ``run_pytest`` gives it a ``--basetemp`` of its own.

Without one, the inner pytest numbers a new ``$TMPDIR/pytest-of-<user>/pytest-N`` beside the
outer run's and deletes all but the newest three. On a machine whose earlier runs left applied
Angular projects there (hard-linked ``node_modules``, gigabytes), that deletion took minutes of
system CPU at the inner run's exit and timed a test out in CI.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def run_pytest(
    args: Sequence[str],
    *,
    cwd: Path,
    basetemp: Path,
    env: Mapping[str, str],
    timeout: float = 300,
) -> subprocess.CompletedProcess[str]:
    """``python -m pytest -p no:cacheprovider --basetemp <basetemp> <args>`` in ``cwd``, the
    repository importable (``tests.*``); ``basetemp`` must not be ``cwd`` or above it."""
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--basetemp", str(basetemp),
         *args],
        cwd=cwd,
        env={**env, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )  # fmt: skip
