"""The browser test's npm packages (json-server, playwright-core): the same install as
``averos-ci preview`` (averos_ci/preview/tools.py: `npm ci` from the lock file shipped with
the package, into the averos-ci cache). `.ci/run` calls ``python -m tests.browser.tools``;
the test calls ``ensure_tools``. This folder keeps the test's own scripts (drive.js, login.js).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from averos_ci.preview.tools import ensure_tools, tools_dir

HERE = Path(__file__).resolve().parent

__all__ = ["HERE", "ensure_tools", "tools_dir"]


if __name__ == "__main__":
    root = Path(
        os.environ.get("AVEROS_CI_CACHE_DIR") or Path.home() / ".cache" / "averos-ci"
    ).expanduser()
    print(ensure_tools(root))
    sys.exit(0)
