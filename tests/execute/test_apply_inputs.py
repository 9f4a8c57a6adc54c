"""apply(): unusable report paths and listener entries are input errors, never lost work."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from averos_ci.cli import run_cli
from tests.conftest import EXAMPLE_DIR


@pytest.fixture
def project(tmp_path: Path) -> Path:
    shutil.copy(EXAMPLE_DIR / "todoapp.manifest.yaml", tmp_path / "todoapp.manifest.yaml")
    return tmp_path


def _config(project: Path, **extra: object) -> Path:
    path = project / "averos.config.json"
    path.write_text(
        json.dumps({"manifestPath": "todoapp.manifest.yaml", "adapter": "mock", **extra})
    )
    return path


def test_unwritable_report_path_is_refused_before_anything_runs(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = project / "not-a-dir"
    blocker.write_text("a file")
    config = _config(project)
    assert run_cli(["run", "--config", str(config), "--junit", str(blocker / "j.xml")]) == 2
    assert "report" in capsys.readouterr().err
    assert not (project / ".averos" / "state.json").exists()
    assert not (project / ".averos" / "checkpoints.json").exists()
    # the same run with a usable path succeeds and records the state
    assert run_cli(["run", "--config", str(config), "--junit", str(project / "j.xml")]) == 0
    assert json.loads((project / ".averos" / "state.json").read_text())["serial"] == 1


def test_listener_factory_that_cannot_be_called_is_a_config_error(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _config(project, listeners=["json:dumps"])
    assert run_cli(["run", "--config", str(config)]) == 2
    err = capsys.readouterr().err
    assert "listener 'json:dumps' could not be created" in err
    assert "internal error" not in err
