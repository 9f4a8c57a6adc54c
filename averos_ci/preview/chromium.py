"""Which Chromium takes the screenshots: ``--chromium PATH``, else ``AVEROS_CI_CHROMIUM``, else
the system's (/usr/bin/chromium, or ``chromium`` on PATH). Never downloaded."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from averos_ci.preview.errors import ChromiumMissing

SYSTEM_CHROMIUM = "/usr/bin/chromium"


def find_chromium(explicit: str | Path | None = None) -> str:
    """The Chromium executable to use; :class:`ChromiumMissing` (exit 2) when there is none."""
    named = str(explicit) if explicit else os.environ.get("AVEROS_CI_CHROMIUM")
    if named:
        candidate = Path(named).expanduser()
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate.resolve())
        raise ChromiumMissing(named)
    if Path(SYSTEM_CHROMIUM).is_file() and os.access(SYSTEM_CHROMIUM, os.X_OK):
        return SYSTEM_CHROMIUM
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found:
        return found
    raise ChromiumMissing(SYSTEM_CHROMIUM)
