"""The browser test's npm packages (json-server, playwright-core), installed with `npm ci` from
the committed package.json + package-lock.json into the averos-ci cache, one folder per lock
file. `.ci/run` calls ``python -m tests.browser.tools``; the test calls ``ensure_tools``.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
FILES = ("package.json", "package-lock.json")


def tools_dir(cache: Path) -> Path:
    digest = hashlib.sha256(b"".join((HERE / f).read_bytes() for f in FILES)).hexdigest()
    return cache / "browser-check" / digest[:16]


def ensure_tools(cache: Path, *, npm: str = "npm") -> Path:
    """The folder whose node_modules holds the packages; `npm ci` there first if needed."""
    target = tools_dir(cache)
    if (target / "node_modules" / ".package-lock.json").is_file():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".install-", dir=target.parent))
    try:
        for name in FILES:
            shutil.copy(HERE / name, staging / name)
        env = {**os.environ, "npm_config_cache": str(cache / "npm")}
        proc = subprocess.run(
            [npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund"],
            cwd=staging,
            env=env,
            capture_output=True,
            text=True,
            timeout=900,
            check=False,
        )
        if proc.returncode != 0:
            raise RuntimeError(f"npm ci in {staging} failed:\n{proc.stdout}\n{proc.stderr}")
        try:
            staging.rename(target)  # atomic: a concurrent installer may have won
        except OSError:
            if not (target / "node_modules" / ".package-lock.json").is_file():
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return target


if __name__ == "__main__":
    root = Path(
        os.environ.get("AVEROS_CI_CACHE_DIR") or Path.home() / ".cache" / "averos-ci"
    ).expanduser()
    print(ensure_tools(root))
    sys.exit(0)
