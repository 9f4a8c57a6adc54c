"""The Averos documentation's config (no ``adapter``) generates the real application, and the
state it records is checked against the workspace: drift with the real generated files."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from averos_ci.cli import run_cli
from tests.conftest import EXAMPLE_DIR
from tests.state.test_guard import AVEROS_DOC_CONFIG

pytestmark = pytest.mark.angular


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory, angular_cache_dir: Path) -> Path:
    """`averos run --config=averos.config.json --verbose` with Averos's own config keys."""
    import os

    from tests.execute.adapters.angular.conftest import _require_node

    _require_node()
    project = tmp_path_factory.mktemp("averos-doc")
    shutil.copy(EXAMPLE_DIR / "todoapp.manifest.yaml", project / "todoapp.manifest.yaml")
    (project / "averos.config.json").write_text(json.dumps(AVEROS_DOC_CONFIG, indent=2))
    old = os.environ.get("AVEROS_CI_CACHE_DIR")
    os.environ["AVEROS_CI_CACHE_DIR"] = str(angular_cache_dir)
    cwd = Path.cwd()
    try:
        os.chdir(project)
        code = run_cli(["run", "--config=averos.config.json", "--verbose"])
    finally:
        os.chdir(cwd)
        if old is None:
            os.environ.pop("AVEROS_CI_CACHE_DIR", None)
        else:
            os.environ["AVEROS_CI_CACHE_DIR"] = old
    assert code == 0
    return project


def copy_project(generated: Path, dest: Path) -> Path:
    shutil.copytree(generated, dest, symlinks=True, ignore=shutil.ignore_patterns("node_modules"))
    return dest


def state_of(project: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((project / ".averos/state.json").read_text())
    return data


def test_the_documented_config_generates_the_real_application(generated: Path) -> None:
    ws = generated / "workspace"
    assert (ws / "angular.json").is_file()
    assert (ws / "node_modules" / "@wiforge" / "averos" / "package.json").is_file()
    summary = json.loads((generated / ".averos/logs/summary.json").read_text())
    assert summary["adapter"] == "angular-schematics" and "generated" not in summary
    state = state_of(generated)
    assert state["adapter"]["name"] == "angular-schematics"
    files = {p for n in state["workspace"]["nodes"].values() for p in n["files"]}
    assert "angular.json" in files and len(files) > 30
    assert all((ws / p).is_file() for p in files)


def one_writer_file(state: dict[str, Any]) -> tuple[str, str]:
    """A generated file written by exactly one non-application node."""
    writers: dict[str, list[str]] = {}
    for node, nf in state["workspace"]["nodes"].items():
        for path in nf["files"]:
            writers.setdefault(path, []).append(node)
    for path, nodes in sorted(writers.items()):
        if len(nodes) == 1 and nodes[0].startswith("entity:") and path.endswith(".ts"):
            return path, nodes[0]
    raise AssertionError("no single-writer entity file")


def test_drift_on_the_real_workspace(
    generated: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = copy_project(generated, tmp_path / "p")
    config = str(project / "averos.config.json")
    state = state_of(project)
    missing, node = one_writer_file(state)
    (project / "workspace" / missing).unlink()
    edited = "src/app/app.component.html"
    assert edited in {p for n in state["workspace"]["nodes"].values() for p in n["files"]}
    (project / "workspace" / edited).write_text("<p>mine</p>\n")
    assert run_cli(["plan", "--config", config]) == 0
    out, err = capsys.readouterr()
    # the adapter regenerates: a generated file the user deleted is the user's deletion, kept
    # deleted and reported (no node re-runs); an edited one is a user edit
    assert "No changes" in out and node not in out
    assert "user edits" in err and edited in err
    assert run_cli(["drift", "--config", config, "--detailed-exitcode"]) == 0
    drift = capsys.readouterr()
    report = drift.out + drift.err
    assert "user deleted: 1 generated file(s)" in report and missing in report
    assert edited in report
    # a workspace that is gone: `run` refuses before writing anything
    shutil.rmtree(project / "workspace")
    shutil.rmtree(project / ".averos/logs")
    before = (project / ".averos/state.json").read_bytes()
    assert run_cli(["run", "--config", config]) == 2
    err = capsys.readouterr().err
    assert "the workspace is not the application the state describes" in err
    assert not (project / "workspace").exists()
    # the pristine tree (regeneration) stays next to the state
    assert sorted(p.name for p in (project / ".averos").iterdir()) == ["pristine", "state.json"]
    assert (project / ".averos/state.json").read_bytes() == before
