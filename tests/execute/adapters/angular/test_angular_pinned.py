"""The shipped pinned dependency set: chosen for exactly its versions, consistent with itself,
and (real Angular) the same workspace as `ng new` + `ng add` + `npm install -D @types/node`."""

from __future__ import annotations

import dataclasses
import json
import stat
from pathlib import Path
from typing import Any

import pytest

from averos_ci.execute.adapters.angular.options import AngularOptions
from averos_ci.execute.adapters.angular.template.bootstrap import (
    BootstrapSpec,
    create_workspace,
    install_dependencies,
)
from averos_ci.execute.adapters.angular.template.cache import ensure_template
from averos_ci.execute.adapters.angular.template.pinned import PINNED_ROOT, pinned_set
from averos_ci.execute.adapters.angular.template.tarball import LocalTarball
from averos_ci.execute.adapters.angular.template.toolchain import Toolchain
from averos_ci.execute.adapters.angular.template.workspace import is_bootstrapped
from averos_ci.execute.adapters.angular.testing import context, tree_digest

FAKE_TOOLS = Toolchain(node="node", npm="npm", npx="npx", node_version=(20, 0, 0))
SETS = sorted(p.parent for p in PINNED_ROOT.glob("*/pins.json"))


def _spec(
    tmp_path: Path, options: AngularOptions, toolchain: Toolchain = FAKE_TOOLS
) -> BootstrapSpec:
    return BootstrapSpec(
        app_name="ToDoApp",
        language="en",
        angular_cli_version=options.angular_cli_version,
        averos_version=options.averos_version,
        types_node_version=options.types_node_version,
        collection=options.collection,
        style=options.style,
        registry=None,
        cache_root=tmp_path / "cache",
        timeout_s=600,
        toolchain=toolchain,
    )


def _load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def test_the_default_versions_have_a_pinned_set(tmp_path: Path) -> None:
    found = pinned_set(_spec(tmp_path, AngularOptions()))
    assert found is not None
    assert (found.folder / "package-lock.json").is_file()


@pytest.mark.parametrize(
    "change",
    [
        {"averosVersion": "1.4.0"},
        {"angularCliVersion": "15"},
        {"typesNodeVersion": "18"},
        {"collection": "@acme/schematics"},
    ],
)
def test_other_versions_take_the_three_step_path(tmp_path: Path, change: dict[str, str]) -> None:
    assert pinned_set(_spec(tmp_path, AngularOptions.model_validate(change))) is None


def test_a_local_tarball_takes_the_three_step_path(tmp_path: Path) -> None:
    tgz = LocalTarball(path=tmp_path / "a.tgz", name="@wiforge/averos", version="1.4.1", sha256="0")
    spec = dataclasses.replace(_spec(tmp_path, AngularOptions()), local_tgz=tgz)
    assert pinned_set(spec) is None


@pytest.mark.parametrize("folder", SETS, ids=[p.name for p in SETS])
def test_the_shipped_lock_is_the_lock_of_its_package_json(folder: Path) -> None:
    package, lock, pins = (
        _load(folder / n) for n in ("package.json", "package-lock.json", "pins.json")
    )
    assert lock["lockfileVersion"] >= 2  # `npm ci` reads every tarball from it, no resolution
    root = lock["packages"][""]
    for kind in ("dependencies", "devDependencies"):
        assert root[kind] == package[kind]
    installed = lock["packages"]
    assert installed[f"node_modules/{pins['collection']}"]["version"] == pins["averos"]
    cli = installed["node_modules/@angular/cli"]["version"]
    assert cli.split(".")[0] == pins["angularCli"]
    assert installed["node_modules/@types/node"]["version"].split(".")[0] == pins["typesNode"]
    unpinned = [
        path
        for path, entry in installed.items()
        if path and not entry.get("link") and not (entry.get("resolved") and entry.get("integrity"))
    ]
    assert unpinned == []


def test_the_manifest_takes_the_application_s_package_name(tmp_path: Path) -> None:
    found = pinned_set(_spec(tmp_path, AngularOptions()))
    assert found is not None
    package_text, lock_text = found.manifest("shop-front")
    package, lock = json.loads(package_text), json.loads(lock_text)
    assert package["name"] == lock["name"] == lock["packages"][""]["name"] == "shop-front"
    shipped = _load(found.folder / "package.json")
    assert {k: v for k, v in package.items() if k != "name"} == {
        k: v for k, v in shipped.items() if k != "name"
    }
    assert package_text.endswith("}\n") and package_text.startswith('{\n  "name"')


def _template_of(tmp_path: Path, lock_text: str, *, modules: bool = True) -> Path:
    ws = tmp_path / "template" / "workspace"
    (ws / "node_modules").mkdir(parents=True) if modules else ws.mkdir(parents=True)
    (ws / "package-lock.json").write_text(lock_text)
    return ws


def test_a_template_of_another_name_holds_the_same_packages(tmp_path: Path) -> None:
    found = pinned_set(_spec(tmp_path, AngularOptions()))
    assert found is not None
    _, lock_text = found.manifest("another-app")
    assert found.installed_in(_template_of(tmp_path, lock_text))


def test_a_lock_without_resolved_urls_holds_the_same_packages(tmp_path: Path) -> None:
    """npm under ``omit-lockfile-registry-resolved`` (as on this machine) writes no URLs."""
    found = pinned_set(_spec(tmp_path, AngularOptions()))
    assert found is not None
    lock = json.loads(found.manifest("another-app")[1])
    for entry in lock["packages"].values():
        entry.pop("resolved", None)
    assert found.installed_in(_template_of(tmp_path, json.dumps(lock)))


@pytest.mark.parametrize("change", ["version", "integrity", "no node_modules", "no lock"])
def test_a_template_with_other_packages_is_not_shared(tmp_path: Path, change: str) -> None:
    found = pinned_set(_spec(tmp_path, AngularOptions()))
    assert found is not None
    lock = json.loads(found.manifest("another-app")[1])
    if change == "version":
        lock["packages"]["node_modules/d3"]["version"] = "7.0.0"
    if change == "integrity":
        lock["packages"]["node_modules/d3"]["integrity"] = "sha512-other"
    ws = _template_of(tmp_path, json.dumps(lock), modules=change != "no node_modules")
    if change == "no lock":
        (ws / "package-lock.json").unlink()
    assert not found.installed_in(ws)


def test_npm_ci_prefers_the_cache_and_skips_audit_and_fund(tmp_path: Path) -> None:
    calls = tmp_path / "calls.txt"
    npm = tmp_path / "npm"
    npm.write_text(
        f'#!/bin/sh\necho "$@" >> {calls}\nenv | grep -E "^npm_config_(prefer_offline|progress)"'
        f" | sort >> {calls}\n"
    )
    npm.chmod(npm.stat().st_mode | stat.S_IXUSR)
    root = tmp_path / "ws"
    root.mkdir()
    (root / "package-lock.json").write_text("{}")
    tools = dataclasses.replace(FAKE_TOOLS, npm=str(npm))
    install_dependencies(root, tools, tmp_path / "cache", AngularOptions(), context(root))
    assert calls.read_text().splitlines() == [
        "ci --prefer-offline --no-audit --no-fund --progress=false",
        "npm_config_prefer_offline=true",
        "npm_config_progress=false",
    ]


def _direct_versions(ws: Path) -> dict[str, str]:
    package = _load(ws / "package.json")
    names = [*package["dependencies"], *package["devDependencies"]]
    return {
        n: _load(ws.joinpath("node_modules", *n.split("/"), "package.json"))["version"]
        for n in names
    }


@pytest.mark.angular
@pytest.mark.slow
@pytest.mark.usefixtures("require_node", "angular_env")
def test_the_pinned_path_makes_the_workspace_the_three_steps_make(tmp_path: Path) -> None:
    """Minutes: both paths for an application name of their own, from npm's shared cache."""
    spec = BootstrapSpec.from_options(AngularOptions(), app_name="ShopFront", language="en")
    three_steps, pinned = tmp_path / "three-steps" / "ws", tmp_path / "pinned" / "ws"
    create_workspace(three_steps, spec, log=tmp_path / "three-steps.log", use_pinned=False)
    create_workspace(pinned, spec, log=tmp_path / "pinned.log")
    commands = [
        line for line in (tmp_path / "pinned.log").read_text().splitlines() if line[:2] == "$ "
    ]
    assert len(commands) == 3 and commands[0].endswith(
        " ci --prefer-offline --no-audit --no-fund --progress=false"
    )
    assert not any("npx" in c or " add " in c for c in commands)
    expected = {k: v for k, v in tree_digest(three_steps).items() if k != "package-lock.json"}
    got = {k: v for k, v in tree_digest(pinned).items() if k != "package-lock.json"}
    assert got == expected
    assert _direct_versions(pinned) == _direct_versions(three_steps)
    # A template for another application shares those packages instead of installing them.
    cache = tmp_path / "cache"
    (cache / "templates" / "donor").mkdir(parents=True)
    (cache / "templates" / "donor" / "ready.json").write_text("{}")
    pinned.rename(cache / "templates" / "donor" / "workspace")
    other = dataclasses.replace(spec, app_name="Other")
    made = ensure_template(cache, other, log=tmp_path / "other.log")
    log = (tmp_path / "other.log").read_text()
    assert "node_modules linked from" in log and " ci " not in log
    assert is_bootstrapped(made, other.collection)
    assert _load(made / "package.json")["name"] == "other"
