"""Development builds of the tests' apps in slots: fixed folders, one pool per application,
with Angular's persistent build cache on.

Angular's webpack cache (``.angular/cache``) is off under ``CI=true`` (the default
``cli.cache.environment`` is ``local``) and bound to the workspace's path: every test's app sits
in its own ``tmp_path``, so every build started cold, 60-100 s of CPU. ``build_in_slot`` copies
the app's sources into ``<cache>/build-slots/<app>-<n>/workspace`` (``<app>``: the name in its
``package.json``; ``<n>``: the first slot of that app no other build holds), whose
``node_modules`` is hard-linked from the app's once (and again when the app's installed packages
differ), turns the cache on in that copy's ``angular.json``, runs ``build`` there and copies the
output back to the same place in the app's workspace. It is the same compilation: the same
sources, the same ``node_modules``, the same command; only the folder differs.

The copy is a developer's next build: a file whose bytes the slot already holds keeps the
slot's file and its modification time; a new or changed file is written with a fresh one, and a
file the app no longer has is removed. Webpack (which checks timestamps) then rebuilds what
changed and takes the rest from its cache, as after an edit; it never takes a changed file for
the one before. A pool per application keeps the builds of one app (the library example's, the
ToDo example's) together, whichever worker runs them.

An exclusive lock on the slot keeps two builds (two workers, or two runs on one machine) apart.
"""

from __future__ import annotations

import fcntl
import filecmp
import hashlib
import json
import os
import re
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from averos_ci.execute.adapters.angular.template.workspace import link_tree
from averos_ci.preview.build import output_dir

KEPT = frozenset({"node_modules", ".angular"})  # what a slot keeps from one build to the next
NOT_COPIED = KEPT | {"dist"}
CONFIG = "angular.json"  # written by _cache_on, not copied
POOL = 8  # slots per application tried before waiting for the first


def build_in_slot(
    workspace: Path, cache_dir: Path, build: Callable[[Path], Path], *, slot: str | None = None
) -> Path:
    """Run ``build(slot_workspace)`` (it returns the built app's folder) on a copy of
    ``workspace`` in a free slot of its application, or in the slot named ``slot`` (a build of
    its own kind, as the production build, keeps its cache there whichever worker runs it); the
    built app, copied back into ``workspace``."""
    names = [slot] if slot else [f"{_app_name(workspace)}-{n}" for n in range(POOL)]
    with _locked_slot(cache_dir / "build-slots", names) as slot_dir:
        copy = _refresh(slot_dir / "workspace", workspace)
        built = build(copy)
        back = workspace / built.relative_to(copy)
        shutil.rmtree(back, ignore_errors=True)
        shutil.copytree(built, back)
    found = output_dir(workspace)
    assert found == back, (found, back)
    return back


@contextmanager
def _locked_slot(root: Path, names: list[str]) -> Iterator[Path]:
    """The first of the slots ``names`` no one holds, held (locked) while in use; when every
    one is held, the first once it is free."""
    for name in names:
        slot_dir = root / name
        slot_dir.mkdir(parents=True, exist_ok=True)
        with (slot_dir / ".lock").open("a") as lock:  # the lock goes when the file closes
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                continue
            yield slot_dir
            return
    with (root / names[0] / ".lock").open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield root / names[0]


def _app_name(workspace: Path) -> str:
    """The application's name (its ``package.json``), as a folder name."""
    try:
        name = json.loads((workspace / "package.json").read_text(encoding="utf-8"))["name"]
    except (OSError, ValueError, KeyError, TypeError):
        name = ""
    return re.sub(r"[^a-z0-9._-]+", "-", str(name).lower()).strip(".-") or "app"


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
    _sync(workspace, copy, skip=NOT_COPIED | {CONFIG}, kept=KEPT | {CONFIG})
    if not (copy / "node_modules").exists():
        marker.unlink(missing_ok=True)  # a link cut short is never taken for a whole one
        link_tree((workspace / "node_modules").resolve(), copy / "node_modules")
        marker.write_text(key, encoding="utf-8")
    _cache_on(workspace / CONFIG, copy / CONFIG)
    return copy


def _sync(
    src: Path, dst: Path, *, skip: frozenset[str] = frozenset(), kept: frozenset[str] = frozenset()
) -> None:
    """``dst`` made to hold what ``src`` holds (but the entries named ``skip``): a file whose
    bytes ``dst`` already has is left as it is (its modification time too), a new or changed
    one is written afresh (a new modification time); an entry of ``dst`` that ``src`` lacks is
    removed, but those named ``kept``."""
    wanted = {e.name: Path(e.path) for e in os.scandir(src) if e.name not in skip}
    for entry in list(dst.iterdir()):
        if entry.name in kept:
            continue
        source = wanted.get(entry.name)
        if source is None or _kind(source) != _kind(entry):
            _remove(entry)
    for name, source in wanted.items():
        target = dst / name
        kind = _kind(source)
        if kind == "link":
            if not target.is_symlink() or os.readlink(target) != os.readlink(source):
                target.unlink(missing_ok=True)
                target.symlink_to(os.readlink(source))
        elif kind == "dir":
            target.mkdir(exist_ok=True)
            _sync(source, target)
        elif not target.exists() or not filecmp.cmp(source, target, shallow=False):
            target.unlink(missing_ok=True)
            shutil.copy(source, target)  # the bytes and the mode; a modification time of now


def _kind(path: Path) -> str:
    if path.is_symlink():
        return "link"
    return "dir" if path.is_dir() else "file"


def _modules_key(workspace: Path) -> str:
    """What ``node_modules`` holds: npm's record of the installed packages (without the root
    package, whose name is the app's)."""
    record = workspace / "node_modules" / ".package-lock.json"
    packages = json.loads(record.read_text(encoding="utf-8"))["packages"]
    text = json.dumps(packages, sort_keys=True).encode()
    return hashlib.sha256(text).hexdigest()


def _cache_on(angular_json: Path, target: Path) -> None:
    """``target``: ``angular_json`` with the persistent cache on in every environment (CI too),
    its folder the default one; left as it is (its modification time too) when it holds that."""
    doc = json.loads(angular_json.read_text(encoding="utf-8"))
    cli = doc.setdefault("cli", {})
    cli["cache"] = {**cli.get("cache", {}), "enabled": True, "environment": "all"}
    text = json.dumps(doc, indent=2) + "\n"
    if not target.is_file() or target.read_text(encoding="utf-8") != text:
        target.unlink(missing_ok=True)
        target.write_text(text, encoding="utf-8")


def _remove(entry: Path) -> None:
    if entry.is_dir() and not entry.is_symlink():
        shutil.rmtree(entry)
    else:
        entry.unlink()
