"""The fast bootstrap: the pinned versions' dependency set, shipped with the package.

For the default versions (Angular CLI 14, @wiforge/averos 1.4.1, @types/node 16) the
package ships the ``package.json`` and ``package-lock.json`` that `ng new` + `ng add` +
`npm install -D @types/node` produce (``pinned/<set>/``). A workspace is then made with one
`npm ci` (no resolution: the lock names every tarball) and the schematics run offline from
the installed packages: `ng new --skip-install` (the application's own files) and the
collection's ``ng-add`` schematic with ``--skip-install``. Other versions, a ``localTgz`` or a
collection of one's own take the three-step path of :mod:`.bootstrap`.
``tests/execute/adapters/angular/test_angular_pinned.py`` compares both paths' files.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._proc import run
from .spec import BootstrapSpec
from .workspace import link_tree

PINNED_ROOT = Path(__file__).parent / "pinned"
PINS = "pins.json"
# npm everywhere the adapter runs it: the cache first, no audit/fund requests, no spinner.
NPM_FAST_ENV = {
    "npm_config_prefer_offline": "true",
    "npm_config_audit": "false",
    "npm_config_fund": "false",
    "npm_config_progress": "false",
}
NPM_CI = ("ci", "--prefer-offline", "--no-audit", "--no-fund", "--progress=false")


@dataclass(frozen=True)
class PinnedSet:
    folder: Path
    pins: dict[str, str]

    def manifest(self, name: str) -> tuple[str, str]:
        """The ``package.json`` and ``package-lock.json`` texts, with ``name`` as the
        package name (`ng new` derives it from the application name)."""
        package = _load(self.folder / "package.json")
        lock = _load(self.folder / "package-lock.json")
        package["name"] = name
        lock["name"] = name
        lock["packages"][""]["name"] = name
        return _dump(package), _dump(lock)

    def installed_in(self, workspace: Path) -> bool:
        """Does ``workspace`` (a ready template) hold this set's packages, whatever its
        application's name?"""
        try:
            lock = _load(workspace / "package-lock.json")
        except (OSError, ValueError):
            return False
        ours = _load(self.folder / "package-lock.json")
        return _unnamed(lock) == _unnamed(ours) and (workspace / "node_modules").is_dir()


def pinned_set(spec: BootstrapSpec) -> PinnedSet | None:
    """The shipped set made for exactly the spec's versions, or ``None``."""
    if spec.local_tgz is not None:
        return None
    wanted = {
        "collection": spec.collection,
        "averos": spec.averos_version,
        "angularCli": spec.angular_cli_version,
        "typesNode": spec.types_node_version,
    }
    for pins_file in sorted(PINNED_ROOT.glob(f"*/{PINS}")):
        pins = json.loads(pins_file.read_text(encoding="utf-8"))
        if {k: pins.get(k) for k in wanted} == wanted:
            return PinnedSet(folder=pins_file.parent, pins=pins)
    return None


def create_from_lock(
    dest: Path,
    spec: BootstrapSpec,
    pinned: PinnedSet,
    *,
    env: dict[str, str],
    log: Path | None,
    modules_from: Path | None = None,
) -> None:
    """`npm ci` of the pinned set into ``dest`` — or hard links to the ``node_modules`` of
    ``modules_from``, a template holding the same set — then `ng new` and ``ng-add``
    offline."""
    tc = spec.toolchain
    env = {**env, **NPM_FAST_ENV}
    dest.mkdir(parents=True)
    for name in ("package.json", "package-lock.json"):  # renamed after `ng new`
        shutil.copyfile(pinned.folder / name, dest / name)
    # Averos 1.4.x peer dependencies do not resolve strictly with npm >= 7.
    (dest / ".npmrc").write_text("legacy-peer-deps=true\n", encoding="utf-8")
    if modules_from is not None and pinned.installed_in(modules_from):
        done = link_tree(modules_from / "node_modules", dest / "node_modules")
        _note(log, f"node_modules {done} from {modules_from} (the same packages)")
    else:
        run([tc.npm, *NPM_CI], cwd=dest, env=env, timeout=spec.timeout_s, log=log)
    ng = [tc.node, str(dest / "node_modules" / "@angular" / "cli" / "bin" / "ng.js")]
    scratch = dest.parent / f".{dest.name}.ng-new"
    shutil.rmtree(scratch, ignore_errors=True)
    scratch.mkdir()
    try:
        run(
            [
                *ng,
                "new",
                spec.app_name,
                "--directory=app",
                "--skip-install",
                *spec.ng_new_options(),
            ],
            cwd=scratch,
            env=env,
            timeout=spec.timeout_s,
            log=log,
        )
        made = scratch / "app"
        name = _load(made / "package.json")["name"]
        package, lock = pinned.manifest(name)
        for entry in sorted(made.iterdir()):
            if entry.name not in {"package.json", "package-lock.json", ".npmrc"}:
                os.replace(entry, dest / entry.name)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    (dest / "package.json").write_text(package, encoding="utf-8")
    (dest / "package-lock.json").write_text(lock, encoding="utf-8")
    run(
        [
            *ng,
            "generate",
            f"{spec.collection}:ng-add",
            "--skip-install",
            *spec.ng_add_options(),
        ],
        cwd=dest,
        env=env,
        timeout=spec.timeout_s,
        log=log,
    )


def _note(log: Path | None, line: str) -> None:
    if log is not None:
        log.parent.mkdir(parents=True, exist_ok=True)
        with log.open("a", encoding="utf-8") as f:
            f.write(line + "\n")


def _unnamed(lock: dict[str, Any]) -> dict[str, Any]:
    """The lock's packages without the root's name and the ``resolved`` URLs (npm leaves
    those out under ``omit-lockfile-registry-resolved``): versions and integrity decide."""
    packages = {
        path: {k: v for k, v in entry.items() if k != "resolved"}
        for path, entry in (lock.get("packages") or {}).items()
    }
    packages[""] = {k: v for k, v in (packages.get("") or {}).items() if k != "name"}
    return packages


def _load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def _dump(data: dict[str, Any]) -> str:
    # npm's own layout: JSON.stringify(data, null, 2) + "\n"
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
