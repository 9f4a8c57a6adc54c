"""``plan`` refuses what ``run`` refuses (issue 23): the adapter name, its ``adapterOptions``
model, listeners and a misspelt key all fail both commands with exit 2, located in
``averos.config.json``, with a did-you-mean; and neither reaches the adapter."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from averos_ci.cli import run_cli
from tests.conftest import copy_example

REPO_ROOT = Path(__file__).resolve().parents[2]
AVEROS = Path(sys.executable).with_name("averos")  # the Averos-compatible console script

HEAD = '{\n  "manifestPath": "todoapp.manifest.yaml",\n  "workspaceRoot": "workspace",\n  '

BAD = {  # the line written after HEAD (line 4); expected column, message, hint
    "option": ('"adapterOptions": {"templateCach": true}', 22,
               "invalid adapterOptions for angular-schematics: templateCach: Extra inputs",
               "did you mean 'templateCache'?"),
    "adapter": ('"adapter": "mok"', 14, "unknown adapter 'mok'", "did you mean 'mock'?"),
    "key": ('"adpter": "mock"', 3, "unknown config key 'adpter'", "did you mean 'adapter'?"),
    "mock-option": ('"adapter": "mock", "adapterOptions": {"latency": 1}', 40,
                    "mock adapter: unknown adapterOptions ['latency']", "known: latencyMs"),
    "listener": ('"adapter": "mock", "listeners": ["no_such_module:make"]', 36,
                 "listener 'no_such_module:make' cannot be loaded", "importable"),
    "manifest": ('"adapter": "mock"', 19,  # HEAD's manifestPath, misnamed (line 2)
                 "manifestPath: no such file", "relative to the config file's folder"),
}  # fmt: skip


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return copy_example(tmp_path / "project")


def write_bad(project: Path, case: str) -> Path:
    config = project / "bad.json"
    head = HEAD.replace("todoapp.manifest", "todo") if case == "manifest" else HEAD
    config.write_text(head + BAD[case][0] + "\n}\n")
    return config


@pytest.mark.parametrize("case", sorted(BAD))
def test_plan_refuses_what_run_refuses_located(
    project: Path, case: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    config = write_bad(project, case)
    monkeypatch.chdir(project)
    _, column, message, hint = BAD[case]
    line = 2 if case == "manifest" else 4
    assert run_cli(["plan", "--config", str(config)]) == 2
    out, err = capsys.readouterr()
    assert out == ""  # no plan is shown for a config run would refuse
    assert err.startswith(f"error: {config}:{line}:{column}: {message}"), err
    assert hint in err.splitlines()[-1] and err.splitlines()[-1].startswith("hint: ")
    assert "Traceback" not in err


@pytest.mark.parametrize("case", ["option", "adapter", "key"])
def test_averos_run_refuses_them_the_same_way(project: Path, case: str) -> None:
    """The three configs of issue 23, through the ``averos`` script: exit 2 before any node."""
    config = write_bad(project, case)
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    r = subprocess.run([str(AVEROS), "run", "--config", str(config)], cwd=project,
                       capture_output=True, text=True, env=env, timeout=120)  # fmt: skip
    _, column, message, hint = BAD[case]
    assert r.returncode == 2, r.stderr
    assert r.stderr.startswith(f"error: {config}:4:{column}: {message}")
    assert hint in r.stderr and "Traceback" not in r.stderr
    assert not (project / ".averos").exists()  # nothing ran, nothing was written
    assert not (project / "workspace").exists()


def test_a_cli_adapter_is_not_placed_in_the_file(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project)
    assert run_cli(["run", "--config", "averos.config.json", "--adapter", "mok"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: unknown adapter 'mok'\n")  # given on the command line
    assert "hint: did you mean 'mock'?" in err
