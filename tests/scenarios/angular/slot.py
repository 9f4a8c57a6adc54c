"""Development builds of the tests' apps in one fixed folder per xdist worker, with Angular's
persistent build cache on.

Angular's webpack cache (``.angular/cache``) is off under ``CI=true`` (the default
``cli.cache.environment`` is ``local``) and bound to the workspace's path: every test's app sits
in its own ``tmp_path``, so every build started cold, 60-100 s of CPU. ``build_in_slot`` copies
the app's sources into ``<cache>/build-slots/<worker>/workspace``, whose ``node_modules`` is
hard-linked from the app's once (and again when the app's installed packages differ), turns
the cache on in that copy's ``angular.json``, runs ``build`` there and copies the output back to
the same place in the app's workspace. It is the same compilation: the same sources, the same
``node_modules``, the same command; only the folder differs. The sources are copied with fresh
modification times, so webpack (which checks timestamps) never takes one app's module for
another's.

An exclusive lock on the slot keeps two runs on one machine (a worker of each) apart.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from averos_ci.execute.adapters.angular.template.workspace import link_tree
from averos_ci.preview.build import output_dir

KEPT = frozenset({"node_modules", ".angular"})  # what a slot keeps from one build to the next
NOT_COPIED = KEPT | {"dist"}


def build_in_slot(
    workspace: Path, cache_dir: Path, build: Callable[[Path], Path], *, slot: str | None = None
) -> Path:
    """Run ``build(slot_workspace)`` (it returns the built app's folder) on a copy of
    ``workspace`` in this worker's slot, or in the slot named ``slot`` (a build of its own
    kind, as the production build, keeps its cache there whichever worker runs it); the built
    app, copied back into ``workspace``."""
    name = slot or os.environ.get("PYTEST_XDIST_WORKER", "main")
    slot_dir = cache_dir / "build-slots" / name
    slot_dir.mkdir(parents=True, exist_ok=True)
    with (slot_dir / ".lock").open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        copy = _refresh(slot_dir / "workspace", workspace)
        built = build(copy)
        back = workspace / built.relative_to(copy)
        shutil.rmtree(back, ignore_errors=True)
        shutil.copytree(built, back)
    found = output_dir(workspace)
    assert found == back, (found, back)
    return back


@contextmanager
def warm_folder(cache_dir: Path, name: str, keep: str) -> Iterator[Path]:
    """An empty folder that stays at one path from run to run, but for ``keep`` (a path inside
    it) as the last run left it: for a command that builds in place (``averos-ci preview``),
    whose Angular cache (``<workspace>/.angular``) then serves the next run, as it serves a
    developer's next preview. One per ``name``, whichever worker asks (a folder per worker was
    cold whenever the test ran on another worker than last time); locked while in use."""
    slot_dir = cache_dir / "build-slots" / name
    slot_dir.mkdir(parents=True, exist_ok=True)
    with (slot_dir / ".lock").open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        folder, kept, aside = slot_dir / "folder", slot_dir / "folder" / keep, slot_dir / "kept"
        shutil.rmtree(aside, ignore_errors=True)
        if kept.is_dir():
            kept.rename(aside)
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir()
        if aside.is_dir():
            kept.parent.mkdir(parents=True)
            aside.rename(kept)
        yield folder


def _refresh(copy: Path, workspace: Path) -> Path:
    """``copy`` holding ``workspace``'s sources, its ``node_modules`` and the cache it had."""
    key = _modules_key(workspace)
    marker = copy.parent / "node_modules.key"
    if copy.exists() and (not marker.is_file() or marker.read_text(encoding="utf-8") != key):
        marker.unlink(missing_ok=True)  # a removal cut short leaves no key to match
        shutil.rmtree(copy)  # other dependencies: their cache is no use either
    copy.mkdir(parents=True, exist_ok=True)
    for entry in copy.iterdir():
        if entry.name not in KEPT:
            _remove(entry)
    for entry in workspace.iterdir():
        if entry.name in NOT_COPIED:
            continue
        if entry.is_dir() and not entry.is_symlink():
            shutil.copytree(entry, copy / entry.name, symlinks=True, copy_function=shutil.copy)
        else:
            shutil.copy(entry, copy / entry.name, follow_symlinks=False)
    if not (copy / "node_modules").exists():
        marker.unlink(missing_ok=True)  # a link cut short is never taken for a whole one
        link_tree((workspace / "node_modules").resolve(), copy / "node_modules")
        marker.write_text(key, encoding="utf-8")
    _cache_on(copy / "angular.json")
    return copy


def _modules_key(workspace: Path) -> str:
    """What ``node_modules`` holds: npm's record of the installed packages (without the root
    package, whose name is the app's)."""
    record = workspace / "node_modules" / ".package-lock.json"
    packages = json.loads(record.read_text(encoding="utf-8"))["packages"]
    text = json.dumps(packages, sort_keys=True).encode()
    return hashlib.sha256(text).hexdigest()


def _cache_on(angular_json: Path) -> None:
    """The persistent cache on in every environment (CI too); its folder the default one."""
    doc = json.loads(angular_json.read_text(encoding="utf-8"))
    cli = doc.setdefault("cli", {})
    cli["cache"] = {**cli.get("cache", {}), "enabled": True, "environment": "all"}
    angular_json.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")


def _remove(entry: Path) -> None:
    if entry.is_dir() and not entry.is_symlink():
        shutil.rmtree(entry)
    else:
        entry.unlink()
