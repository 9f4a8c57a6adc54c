"""Applied projects shared by the real-Angular tests: each manifest is generated once per
session (per xdist worker) by an ordinary ``apply``, then copied into each test's tmp_path.

The ``applied_project`` fixture is a factory: ``applied_project(source, dest)`` copies the
project that applied ``source`` (a manifest file) into ``dest`` and returns ``dest``. The
generation is cached in this module, so the fixture may be imported by several conftest files
and test modules and still generates each manifest once.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from averos_ci.config import load_config
from averos_ci.execute.adapters.angular._proc import run as run_command
from averos_ci.execute.adapters.angular.template.workspace import copy_workspace
from averos_ci.planning import apply
from averos_ci.preview.build import BUILD_ARGS, output_dir
from tests.scenarios.angular.slot import build_in_slot

REPO = Path(__file__).resolve().parents[3]
LIBRARY = REPO / "tests" / "scenarios" / "angular" / "data" / "library.manifest.yaml"
LIBRARY_WITH_SHELF = REPO / "tests" / "plan" / "data" / "library.base.manifest.yaml"
TODO = REPO / "examples" / "todoapp" / "todoapp.manifest.yaml"

CONFIG = {
    "mode": "strict",
    "workspaceRoot": "workspace",
    "statePath": ".averos/state.json",
    "checkpointPath": ".averos/checkpoints.json",
    "logsDir": ".averos/logs",
    "adapter": "angular-schematics",
    "adapterOptions": {"templateCache": True},
}

ApplyProject = Callable[..., Path]
_applied: dict[tuple[Path, str], Path] = {}


def make_project(base: Path, source: Path, *, manifest_name: str | None = None) -> Path:
    """A project folder: ``source`` copied as its manifest and the Angular adapter's config."""
    name = manifest_name or _default_name(source)
    base.mkdir(parents=True)
    shutil.copy(source, base / name)
    config = {**CONFIG, "manifestPath": name}
    (base / "averos.config.json").write_text(json.dumps(config, indent=2), encoding="utf-8")
    return base


def copy_project(project: Path, dest: Path) -> Path:
    """A copy of an applied project; its ``node_modules`` hard-linked (a build works there)."""
    shutil.copytree(project, dest, symlinks=True, ignore=_workspace_ignored(project))
    copy_workspace(project / "workspace", dest / "workspace")
    return dest


@contextmanager
def cache_env(cache_dir: Path) -> Iterator[None]:
    """``AVEROS_CI_CACHE_DIR`` for a session-scoped generation (no monkeypatch there)."""
    old = os.environ.get("AVEROS_CI_CACHE_DIR")
    os.environ["AVEROS_CI_CACHE_DIR"] = str(cache_dir)
    try:
        yield
    finally:
        if old is None:
            os.environ.pop("AVEROS_CI_CACHE_DIR", None)
        else:
            os.environ["AVEROS_CI_CACHE_DIR"] = old


@pytest.fixture(scope="session")
def applied_project(
    angular_template: Path, angular_cache_dir: Path, tmp_path_factory: pytest.TempPathFactory
) -> ApplyProject:
    def copy(source: Path, dest: Path, *, manifest_name: str | None = None) -> Path:
        key = (source.resolve(), manifest_name or _default_name(source))
        if key not in _applied:
            project = make_project(
                tmp_path_factory.mktemp("applied") / "project", source, manifest_name=key[1]
            )
            with cache_env(angular_cache_dir):
                outcome = apply(load_config(project / "averos.config.json"))
            assert outcome.summary.success, outcome.summary.failures
            _applied[key] = project
        return copy_project(_applied[key], dest)

    return copy


def ng_build(
    workspace: Path,
    cache_dir: Path,
    args: tuple[str, ...] = BUILD_ARGS,
    *,
    timeout: float = 900,
    output: list[str] | None = None,
    slot: str | None = None,
) -> Path:
    """Preview's build (``ng build --configuration development --source-map=false``) must
    succeed: the proofs end with it. Source maps are written after the compilation (ngtsc,
    then webpack) has succeeded, so leaving them out proves as much for less CPU. It runs in
    this worker's build slot (tests/scenarios/angular/slot.py); the built app's folder.
    ``args`` another build command; ``output`` receives the end of its stdout and stderr;
    ``slot`` a named slot instead of the worker's (``build_in_slot``)."""

    def build(copy: Path) -> Path:
        env = {
            **os.environ,
            "NG_CLI_ANALYTICS": "false",
            "npm_config_cache": str(cache_dir / "npm"),
        }
        # _proc.run: its own process group, ended whole on a timeout (npx starts `ng` as a
        # child, and a build past its time must not go on writing into the next build's slot);
        # a failed build raises CommandFailed with the end of its output
        done = run_command(["npx", *args], cwd=copy, env=env, timeout=timeout)
        if output is not None:
            output.append(done.stdout[-4000:] + done.stderr[-4000:])
        built = output_dir(copy)
        assert built is not None, f"the build wrote no index.html: {done.stdout[-3000:]}"
        return built

    return build_in_slot(workspace, cache_dir, build, slot=slot)


def without_shelf(text: str) -> str:
    """The text of LIBRARY_WITH_SHELF without its Shelf entity and everything naming it."""
    text = re.sub(r"      - memberNature: composite\n(        .*\n)+", "", text)
    text = re.sub(r"  - name: Shelf\n(    .*\n|      .*\n)+", "", text)
    return "".join(line for line in text.splitlines(keepends=True) if "Shelf" not in line)


def with_user_line(text: str, line: str) -> str:
    """``text`` (a generated model) with ``line`` after its "custom members" comment. The
    schematics write CRLF and LF lines: handle the text as decoded bytes, never as universal
    newlines."""
    lines = text.splitlines(keepends=True)
    todo = next(i for i, ln in enumerate(lines) if "TODO: Add your custom entity" in ln)
    end = next(i for i in range(todo, len(lines)) if "*/" in lines[i])
    return "".join([*lines[: end + 1], line, *lines[end + 1 :]])


def _default_name(source: Path) -> str:
    stem = source.name.split(".", 1)[0]
    return f"{stem}.manifest.yaml"


def _workspace_ignored(project: Path) -> Callable[[str, list[str]], set[str]]:
    workspace = str(project / "workspace")

    def ignored(folder: str, names: list[str]) -> set[str]:
        return set(names) if folder == workspace else set()

    return ignored
