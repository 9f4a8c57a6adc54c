"""The npm packages ``preview`` runs (json-server, playwright-core) and the icon font its
screenshots show (material-icons), installed on first use.

``npm ci`` from the package.json + package-lock.json shipped in ``averos_ci/preview/npm/``
into the averos-ci cache, one folder per lock file (its hash names the folder), staged and
renamed into place so that two concurrent first uses never see a half-installed folder.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from averos_ci.errors import ToolchainError
from averos_ci.execute.adapters._env import scrubbed_env

NPM_DIR = Path(__file__).resolve().parent / "npm"
FILES = ("package.json", "package-lock.json")
INSTALL_TIMEOUT_S = 900


def tools_dir(cache: Path) -> Path:
    digest = hashlib.sha256(b"".join((NPM_DIR / f).read_bytes() for f in FILES)).hexdigest()
    return cache / "preview-tools" / digest[:16]


def _installed(folder: Path) -> bool:
    return (folder / "node_modules" / ".package-lock.json").is_file()


def ensure_tools(cache: Path, *, npm: str = "npm", bin_dir: str | None = None) -> Path:
    """The folder whose ``node_modules`` holds the packages; ``npm ci`` there first if needed.
    ``bin_dir`` (Node.js from PyPI) goes first on PATH."""
    target = tools_dir(cache)
    if _installed(target):
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".install-", dir=target.parent))
    try:
        for name in FILES:
            shutil.copy(NPM_DIR / name, staging / name)
        env = {**scrubbed_env(), "npm_config_cache": str(cache / "npm")}
        if bin_dir:
            env["PATH"] = os.pathsep.join(p for p in (bin_dir, env.get("PATH")) if p)
        cmd = [npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund"]
        try:
            proc = subprocess.run(
                cmd,
                cwd=staging,
                env=env,
                capture_output=True,
                text=True,
                timeout=INSTALL_TIMEOUT_S,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise ToolchainError(
                f"`{' '.join(cmd)}` could not run: {exc}", hint=_HINT.format(dir=staging)
            ) from None
        if proc.returncode != 0:
            raise ToolchainError(
                f"`{' '.join(cmd)}` exited {proc.returncode}:\n{proc.stdout[-2000:]}"
                f"{proc.stderr[-2000:]}",
                hint=_HINT.format(dir=staging),
            )
        try:
            staging.rename(target)  # atomic: a concurrent installer may have won
        except OSError:
            if not _installed(target):
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return target


_HINT = (
    "preview installs json-server, playwright-core and material-icons from the npm registry "
    "on first use: check the network or npm_config_registry (the install ran in {dir})"
)
