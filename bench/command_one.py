"""README command 1, timed as a newcomer runs it: a fresh clone, no Node.js on PATH.

Reads command 1 from README.md (between its ``newcomer:command-1`` markers), clones the
committed HEAD into a temporary folder and runs the command there with ``bash -c``, in a fresh
process with an empty HOME and a PATH without node, npm and npx (so Node.js comes from PyPI).
Each run is checked: exit 0, the application generated, and a second run that creates nothing.

    python bench/command_one.py [--runs 3] [--quick]

Full mode (the README's figures):
  clean machine   empty pip, npm and Angular-template caches (a fresh cache folder): pip
                  downloads the packages and npm installs Angular 14 and Averos
  second run      command 1 again in the same clone: nothing to do
  warm caches     a fresh clone with this machine's caches (AVEROS_CI_CACHE_DIR, pip's),
                  the median of --runs fresh clones
--quick (what CI runs): one warm-cache fresh clone and its second run (the clean-machine
figure needs the network and minutes). Targets (bench/_targets.py; exit 1 when one misses):
warm <= 60 s in both modes, clean <= 300 s (full mode). --targets-scale X scales them.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from _figures import Figures, add_arguments
from _timing import own_git_identity

REPO = Path(__file__).resolve().parents[1]
MARKED = re.compile(
    r"^<!-- newcomer:command-1\b[^>]*-->\n```bash\n(?P<body>.*?)^```\n<!-- /newcomer:command-1 -->",
    re.M | re.S,
)
NODE_TOOLS = frozenset({"node", "nodejs", "npm", "npx", "corepack"})
APP_MODULE = Path("examples/todoapp/workspace/src/app/app.module.ts")


def command_1() -> str:
    body = MARKED.search((REPO / "README.md").read_text(encoding="utf-8"))
    if body is None:
        raise SystemExit("README.md has no newcomer:command-1 block")
    lines = [ln for ln in body["body"].splitlines() if ln and not ln.startswith("#")]
    return lines[0]


def path_without_node(folder: Path) -> str:
    """Links to every program on PATH (the first of each name) but node, npm and npx."""
    folder.mkdir()
    for directory in os.environ.get("PATH", "").split(os.pathsep):
        if directory.startswith(str(REPO)):  # the project's own .venv: a newcomer has none
            continue
        try:
            entries = sorted(Path(directory).iterdir())
        except OSError:
            continue
        for program in entries:
            link = folder / program.name
            if program.name in NODE_TOOLS or link.is_symlink() or not program.is_file():
                continue
            if os.access(program, os.X_OK):
                link.symlink_to(program)
    return str(folder)


def newcomer_env(tmp: Path, *, cache: Path, pip_cache: Path) -> dict[str, str]:
    drop = ("VIRTUAL_ENV", "PYTHONPATH", "CI", "GITHUB_ACTIONS", "npm_config_cache")
    env = {k: v for k, v in os.environ.items() if k not in drop}
    home = tmp / "home"
    home.mkdir()
    env.update(
        PATH=path_without_node(tmp / "bin"),
        HOME=str(home),
        AVEROS_CI_CACHE_DIR=str(cache),
        PIP_CACHE_DIR=str(pip_cache),
        PIP_DISABLE_PIP_VERSION_CHECK="1",
    )
    return env


def timed(command: str, clone: Path, env: dict[str, str], *, check: str) -> float:
    started = time.perf_counter()
    proc = subprocess.run(
        ["bash", "-c", command], cwd=clone, env=env, capture_output=True, text=True, check=False
    )
    took = time.perf_counter() - started
    out = proc.stdout + proc.stderr
    if proc.returncode != 0 or check not in out or not (clone / APP_MODULE).is_file():
        raise SystemExit(f"command 1 failed (exit {proc.returncode}):\n{out[-4000:]}")
    return took


def fresh_clone_runs(command: str, *, cache: Path, pip_cache: Path) -> tuple[float, float]:
    """(first run, second run) of command 1 in a fresh clone."""
    tmp = Path(tempfile.mkdtemp(prefix="averos-ci-bench-command-1-"))
    try:
        clone = tmp / "averos-ci"
        subprocess.run(["git", "clone", "-q", str(REPO), str(clone)], check=True)
        env = newcomer_env(tmp, cache=cache, pip_cache=pip_cache)
        first = timed(command, clone, env, check="run succeeded (strict): 33 nodes, 33 succeeded")
        second = timed(command, clone, env, check="run succeeded (strict): 0 nodes")
        return first, second
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def warm_cache() -> Path:
    env = os.environ.get("AVEROS_CI_CACHE_DIR")
    xdg = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(env) if env else Path(xdg) / "averos-ci"


def say(label: str, seconds: float) -> None:
    print(f"  {label:<52}{seconds:7.1f} s", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="warm fresh clones (median)")
    parser.add_argument("--quick", action="store_true", help="one warm fresh clone")
    add_arguments(parser)
    args = parser.parse_args()
    figures = Figures("command_one", quick=args.quick, scale=args.targets_scale)
    own_git_identity()
    command = command_1()
    warm = warm_cache()
    warm.mkdir(parents=True, exist_ok=True)
    print("README command 1 on a fresh clone, no node/npm/npx on PATH (Node.js from PyPI):")
    if not args.quick:
        with tempfile.TemporaryDirectory(prefix="averos-ci-bench-clean-cache-") as clean:
            cold, again = fresh_clone_runs(
                command, cache=Path(clean) / "cache", pip_cache=Path(clean) / "pip"
            )
        say("clean machine (empty pip, npm and template caches)", cold)
        figures.check("command_one.clean_s", cold)
        say("second run (nothing to do)", again)
    runs = [
        fresh_clone_runs(command, cache=warm, pip_cache=warm / "pip")
        for _ in range(1 if args.quick else args.runs)
    ]
    label = "one run" if args.quick else f"median of {len(runs)}"
    warm_s = statistics.median(r[0] for r in runs)
    say(f"warm caches, fresh clone ({label})", warm_s)
    say(f"warm caches, second run ({label})", statistics.median(r[1] for r in runs))
    figures.check("command_one.warm_s", warm_s)
    return figures.exit_code()


if __name__ == "__main__":
    raise SystemExit(main())
