"""The errors of ``preview`` (exit codes: averos_ci/errors.py)."""

from __future__ import annotations

from averos_ci.errors import RunFailed, ToolchainError

CHROMIUM_HINT = (
    "install Chromium (Debian/Ubuntu: `apt-get install chromium`), or name its executable "
    "with --chromium PATH or AVEROS_CI_CHROMIUM"
)


class PreviewFailed(RunFailed):
    """The app did not build, a server did not start, or a page did not render (exit 1)."""


class ChromiumMissing(ToolchainError):
    """Screenshots need a Chromium executable (exit 2)."""

    def __init__(self, path: str) -> None:
        super().__init__(f"Chromium not found at {path}", hint=CHROMIUM_HINT)
