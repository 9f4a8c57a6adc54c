"""Defaults that do the real thing: angular-schematics unless mock is named, mock announces
itself, and a state written by one adapter is never the base of another's run."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from averos_ci.cli import run_cli
from averos_ci.config import load_config
from averos_ci.execute.adapters.identity import execution_identity
from tests.conftest import EXAMPLE_DIR

AVEROS_DOC_CONFIG = {  # the keys of the Averos documentation's averos.config.json, no adapter
    "mode": "strict",
    "timeoutMs": 1800000,
    "maxAttempts": 2,
    "workspaceRoot": "workspace",
    "manifestPath": "todoapp.manifest.yaml",
    "logsDir": ".averos/logs",
    "statePath": ".averos/state.json",
    "checkpointPath": ".averos/checkpoints.json",
}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    shutil.copy(EXAMPLE_DIR / "todoapp.manifest.yaml", tmp_path / "todoapp.manifest.yaml")
    (tmp_path / "averos.config.json").write_text(json.dumps(AVEROS_DOC_CONFIG))
    return tmp_path


def test_without_adapter_the_real_one_is_used(project: Path) -> None:
    config = load_config(project / "averos.config.json")
    assert execution_identity(config)["adapter"] == "angular-schematics"  # what runs it
    example = json.loads((EXAMPLE_DIR / "averos.config.json").read_text())
    assert example["adapter"] == "angular-schematics"  # README command 1 generates the app
    mock = json.loads((EXAMPLE_DIR / "averos.mock.config.json").read_text())
    assert mock["adapter"] == "mock"  # the tests' config, beside it


def test_mock_says_so_in_output_and_summary(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = str(project / "averos.config.json")
    assert run_cli(["run", "--config", config, "--adapter", "mock"]) == 0
    assert "mock adapter: nothing is generated" in capsys.readouterr().out
    summary = json.loads((project / ".averos/logs/summary.json").read_text())
    assert summary["adapter"] == "mock" and summary["generated"] is False
    state = json.loads((project / ".averos/state.json").read_text())
    assert state["adapter"]["name"] == "mock"


def test_a_mock_state_is_refused_as_the_base_of_a_real_run(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = str(project / "averos.config.json")
    assert run_cli(["run", "--config", config, "--adapter", "mock"]) == 0
    capsys.readouterr()
    state_before = (project / ".averos/state.json").read_bytes()
    for command in (["run", "--config", config], ["plan", "--config", config]):
        assert run_cli(command) == 2
        err = capsys.readouterr().err
        assert "written by adapter 'mock', this run uses 'angular-schematics'" in err
        assert "hint: start from an empty state with `averos-ci state reset`" in err
    assert not (project / "workspace").exists()
    assert (project / ".averos/state.json").read_bytes() == state_before
    # the way out: reset keeps a backup; the plan is then the whole application again
    assert run_cli(["state", "reset", "--config", config]) == 0
    assert "moved aside" in capsys.readouterr().out
    assert not (project / ".averos/state.json").exists()
    assert (project / ".averos/state.json.serial-1.bak").read_bytes() == state_before
    assert run_cli(["plan", "--config", config, "--detailed-exitcode"]) == 4


def test_adopt_records_the_configured_adapter(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = str(project / "averos.config.json")
    assert run_cli(["run", "--config", config, "--adapter", "mock"]) == 0
    assert run_cli(["state", "adopt", "--config", config]) == 0
    assert "'mock' -> 'angular-schematics'" in capsys.readouterr().out
    state = json.loads((project / ".averos/state.json").read_text())
    assert state["adapter"]["name"] == "angular-schematics"
    assert run_cli(["plan", "--config", config, "--detailed-exitcode"]) == 0


def test_a_state_without_adapter_record_is_upgraded_with_a_warning(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = str(project / "averos.config.json")
    assert run_cli(["run", "--config", config, "--adapter", "mock"]) == 0
    path = project / ".averos/state.json"
    v2 = json.loads(path.read_text())
    v2["formatVersion"] = 2
    del v2["adapter"], v2["workspace"]
    path.write_text(json.dumps(v2))
    capsys.readouterr()
    assert run_cli(["plan", "--config", config, "--detailed-exitcode"]) == 0
    assert "does not record the adapter" in capsys.readouterr().err
