"""Build the generated app: ``npx ng build --configuration development --source-map=false``
in its workspace (the development configuration: no budgets, no optimisation, about a
minute). A preview serves the app for screenshots and a look: no source maps (writing them
is a tenth to a third of the build's CPU, and nobody debugs a preview)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import time
from pathlib import Path

from averos_ci.errors import InputError
from averos_ci.execute.adapters._children import HeldSignals
from averos_ci.execute.adapters._env import scrubbed_env
from averos_ci.preview.errors import PreviewFailed

BUILD_ARGS = ("ng", "build", "--configuration", "development", "--source-map=false")
BUILD_TIMEOUT_S = 1800


def output_dir(workspace: Path) -> Path | None:
    """Where the build puts the app (angular.json's outputPath), if it holds an index.html."""
    candidates: list[Path] = []
    try:
        angular = json.loads((workspace / "angular.json").read_text(encoding="utf-8"))
        for project in (angular.get("projects") or {}).values():
            options = project.get("architect", {}).get("build", {}).get("options", {})
            if isinstance(options.get("outputPath"), str):
                candidates.append(workspace / options["outputPath"])
    except (OSError, ValueError, AttributeError):
        pass
    if (workspace / "dist").is_dir():
        candidates += sorted((workspace / "dist").iterdir())
    return next((c for c in candidates if (c / "index.html").is_file()), None)


def build_app(
    workspace: Path, *, npx: str, cache: Path, log: Path, bin_dir: str | None = None
) -> Path:
    """Build; the folder to serve. A failed build is exit 1 with the end of its output.
    ``bin_dir`` (Node.js from PyPI) goes first on PATH: ``ng`` starts with ``env node``."""
    env = {
        **scrubbed_env(),
        "npm_config_cache": str(cache / "npm"),
        "npm_config_update_notifier": "false",
        "NG_CLI_ANALYTICS": "false",
        "NG_FORCE_TTY": "false",
    }
    if bin_dir:
        env["PATH"] = os.pathsep.join(p for p in (bin_dir, env.get("PATH")) if p)
    cmd = [npx, *BUILD_ARGS]
    log.parent.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    with log.open("w", encoding="utf-8") as out:
        held = HeldSignals()  # a Ctrl-C landing as the build starts must not lose its pid
        try:
            proc = subprocess.Popen(
                cmd,
                cwd=workspace,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # npx starts `ng` as a child: the group ends together
            )
        except OSError as exc:
            held.release()
            raise PreviewFailed(f"`{' '.join(cmd)}` could not start: {exc}") from None
        except BaseException:
            held.release()
            raise
        try:
            held.release()  # a signal received meanwhile acts now: the finally ends the build
            proc.wait(timeout=BUILD_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            raise PreviewFailed(
                f"`{' '.join(BUILD_ARGS)}` ran longer than {BUILD_TIMEOUT_S} s", path=log
            ) from None
        finally:  # a timeout, a Ctrl-C: no build keeps writing into the workspace
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    if proc.returncode != 0:
        tail = log.read_text(encoding="utf-8", errors="replace")[-3000:]
        raise PreviewFailed(
            f"`npx {' '.join(BUILD_ARGS)}` exited {proc.returncode} "
            f"after {time.monotonic() - started:.0f} s:\n{tail}",
            path=log,
            hint=f"the whole output is in {log}",
        )
    built = output_dir(workspace)
    if built is None:
        raise PreviewFailed(f"the build wrote no index.html under {workspace / 'dist'}", path=log)
    return built


def existing_build(workspace: Path) -> Path:
    built = output_dir(workspace)
    if built is None:
        raise InputError(
            f"--no-build, but {workspace} has no build (no dist/*/index.html)",
            path=workspace,
            hint="run preview once without --no-build",
        )
    return built
