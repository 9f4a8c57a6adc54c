"""tests/scenarios/angular/slot.py: a build slot holds exactly the app it builds (no file of the
app before it), keeps Angular's cache between builds with the same installed packages and drops
it when they differ, keeps the modification time of a file whose bytes it already holds (and
only then), takes the next slot of the app's pool while one is held, turns the cache on, and
hands the built app back. The build here is a stand-in
that records what it saw; the real builds are the proofs that use ``ng_build``."""

from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Mapping
from pathlib import Path

import pytest

from tests.scenarios.angular.slot import build_in_slot, warm_folder

OLD = 1_000_000_000  # 2001: a modification time no copy keeps


def _app(
    root: Path, sources: dict[str, str], packages: Mapping[str, object], *, name: str = "app"
) -> Path:
    """An app named ``name`` (its package.json) in ``root``, every file of it from 2001."""
    ws = root / "workspace"
    angular = {
        "projects": {"app": {"architect": {"build": {"options": {"outputPath": "dist/app"}}}}}
    }
    files = {
        "angular.json": json.dumps(angular),
        "package.json": json.dumps({"name": name}),
        "node_modules/.package-lock.json": json.dumps({"name": root.name, "packages": packages}),
        "node_modules/lib/index.js": "module.exports = 1;\n",
        "dist/stale/index.html": "an earlier build\n",
        **sources,
    }
    for name, text in files.items():
        (ws / name).parent.mkdir(parents=True, exist_ok=True)
        (ws / name).write_text(text, encoding="utf-8")
        os.utime(ws / name, (OLD, OLD))
    return ws


class StandIn:
    """A build: records the folder's files and the cache's generation, writes an index.html."""

    def __init__(self) -> None:
        self.seen: list[set[str]] = []
        self.generation: list[int] = []

    def __call__(self, copy: Path) -> Path:
        self.seen.append({str(p.relative_to(copy)) for p in copy.rglob("*") if p.is_file()})
        marker = copy / ".angular" / "cache" / "generation"
        n = int(marker.read_text(encoding="utf-8")) + 1 if marker.is_file() else 1
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.write_text(str(n), encoding="utf-8")
        self.generation.append(n)
        angular = json.loads((copy / "angular.json").read_text(encoding="utf-8"))
        assert angular["cli"]["cache"] == {"enabled": True, "environment": "all"}
        for source in (copy / "src").rglob("*"):
            assert source.stat().st_mtime > OLD, source  # fresh: webpack compares timestamps
        out = copy / "dist" / "app"
        out.mkdir(parents=True)
        sources = sorted(p.name for p in (copy / "src").iterdir())
        (out / "index.html").write_text(" ".join(sources), encoding="utf-8")
        return out


def test_a_slot_builds_each_app_alone_and_keeps_the_cache_while_the_packages_match(
    tmp_path: Path,
) -> None:
    cache, build = tmp_path / "cache", StandIn()
    lib = {"node_modules/lib": {"v": 1}}
    first = _app(tmp_path / "first", {"src/first.ts": "1"}, lib, name="Library App")
    second = _app(tmp_path / "second", {"src/second.ts": "2"}, lib, name="Library App")
    other = _app(tmp_path / "other", {"src/other.ts": "3"}, {"node_modules/lib": {"v": 2}})
    other.joinpath("package.json").write_text(json.dumps({"name": "Library App"}))

    built = build_in_slot(first, cache, build)
    assert built == first / "dist" / "app"
    assert built.joinpath("index.html").read_text(encoding="utf-8") == "first.ts"
    slot = cache / "build-slots" / "library-app-0" / "workspace"  # its app's first slot
    module = Path("node_modules/lib/index.js")
    assert slot.joinpath(module).stat().st_ino == first.joinpath(module).stat().st_ino  # linked
    assert not any(name.startswith("dist/stale") for name in build.seen[0])

    # the next build of that app (the same packages): the cache stays, the first one's files go
    built = build_in_slot(second, cache, build)
    assert built.joinpath("index.html").read_text(encoding="utf-8") == "second.ts"
    assert "src/second.ts" in build.seen[1] and "src/first.ts" not in build.seen[1]
    assert build.generation == [1, 2]

    # other packages: another node_modules, and the cache starts over
    build_in_slot(other, cache, build)
    assert build.generation == [1, 2, 1]
    assert slot.joinpath(module).stat().st_ino == other.joinpath(module).stat().st_ino
    assert (first / "src" / "first.ts").read_text(encoding="utf-8") == "1"  # the app untouched


def test_a_slot_whose_key_is_missing_is_made_again(tmp_path: Path) -> None:
    """A link or a removal cut short (the worker killed) leaves the key removed: the next build
    never takes that ``node_modules`` for a whole one."""
    cache, build = tmp_path / "cache", StandIn()
    app = _app(tmp_path / "app", {"src/app.ts": "1"}, {"node_modules/lib": {"v": 1}})
    build_in_slot(app, cache, build)
    slot = cache / "build-slots" / "app-0"
    (slot / "node_modules.key").unlink()
    (slot / "workspace" / "node_modules" / "lib" / "index.js").unlink()  # half linked

    build_in_slot(app, cache, build)
    assert "node_modules/lib/index.js" in build.seen[1]
    assert build.generation == [1, 1]  # the cache went with the folder
    assert (slot / "node_modules.key").is_file()


def test_a_file_the_slot_already_holds_keeps_its_time_a_changed_one_is_new(
    tmp_path: Path,
) -> None:
    """As a developer's next build: webpack (it compares timestamps) rebuilds what changed."""
    cache, build = tmp_path / "cache", StandIn()
    lib = {"node_modules/lib": {"v": 1}}
    files = {"src/same.ts": "same", "src/edited.ts": "before", "src/gone.ts": "gone"}
    build_in_slot(_app(tmp_path / "v1", files, lib), cache, build)
    slot = cache / "build-slots" / "app-0" / "workspace"
    held = [*files, "angular.json"]  # the config too: written with the cache on, once
    times = {name: os.stat(slot / name).st_mtime_ns for name in held}
    for name in held:  # an old slot: any rewrite now shows in the file's time
        os.utime(slot / name, ns=(times[name] - 10**9, times[name] - 10**9))
    before = {name: os.stat(slot / name).st_mtime_ns for name in held}
    v2 = {"src/same.ts": "same", "src/edited.ts": "after", "src/new.ts": "new"}
    build_in_slot(_app(tmp_path / "v2", v2, lib), cache, build)
    assert build.seen[1] >= {"src/same.ts", "src/edited.ts", "src/new.ts"}
    assert "src/gone.ts" not in build.seen[1]
    assert os.stat(slot / "src/same.ts").st_mtime_ns == before["src/same.ts"]
    assert os.stat(slot / "angular.json").st_mtime_ns == before["angular.json"]
    assert os.stat(slot / "src/edited.ts").st_mtime_ns > before["src/edited.ts"]
    assert (slot / "src/edited.ts").read_text(encoding="utf-8") == "after"


def test_a_build_takes_the_next_slot_of_its_app_while_one_is_held(tmp_path: Path) -> None:
    cache, build = tmp_path / "cache", StandIn()
    app = _app(tmp_path / "app", {"src/app.ts": "1"}, {"node_modules/lib": {"v": 1}})
    held = cache / "build-slots" / "app-0"
    held.mkdir(parents=True)
    with (held / ".lock").open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another worker's build
        build_in_slot(app, cache, build)
    assert not (held / "workspace").exists()
    assert (cache / "build-slots" / "app-1" / "workspace" / "src" / "app.ts").is_file()
    build_in_slot(app, cache, build)  # free again: the first slot
    assert (held / "workspace" / "src" / "app.ts").is_file()


def test_a_named_slot_is_the_same_whichever_worker_builds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The production build keeps its configuration's cache in its own slot."""
    cache, build = tmp_path / "cache", StandIn()
    app = _app(tmp_path / "app", {"src/app.ts": "1"}, {"node_modules/lib": {"v": 1}})
    for worker in ("gw1", "gw2"):
        monkeypatch.setenv("PYTEST_XDIST_WORKER", worker)
        build_in_slot(app, cache, build, slot="production")
    assert build.generation == [1, 2]  # the second worker found the first one's cache
    assert sorted(p.name for p in (cache / "build-slots").iterdir()) == ["production"]


def test_a_warm_folder_keeps_only_its_cache_from_one_run_to_the_next(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    keep = "project/workspace/.angular"
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw0")
    with warm_folder(cache, "preview", keep) as first:
        assert list(first.iterdir()) == []  # the first run: nothing to keep
        (first / keep / "cache").mkdir(parents=True)
        (first / keep / "cache" / "entry").write_text("warm\n")
        (first / "project" / "workspace" / "src.ts").write_text("the first run's app\n")
        (first / "project" / "state.json").write_text("{}\n")
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw3")
    with warm_folder(cache, "preview", keep) as second:
        assert second == first  # one path, whichever worker asks
        found = sorted(str(p.relative_to(second)) for p in second.rglob("*"))
        assert found == [
            "project",
            "project/workspace",
            "project/workspace/.angular",
            "project/workspace/.angular/cache",
            "project/workspace/.angular/cache/entry",
        ]
