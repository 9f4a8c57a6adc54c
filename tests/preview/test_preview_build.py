"""``preview``'s build without Angular: a stand-in ``npx`` records the command it was given and
writes what the Angular CLI would (angular.json's outputPath with an index.html), or fails."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from averos_ci.preview.build import build_app
from averos_ci.preview.errors import PreviewFailed
from tests.processes import gone_within

NPX = """#!{python}
import pathlib, sys
pathlib.Path("argv.json").write_text(__import__("json").dumps(sys.argv[1:]))
if {fail}:
    print("ERROR: the compilation failed")
    sys.exit(1)
pathlib.Path("dist/app").mkdir(parents=True)
pathlib.Path("dist/app/index.html").write_text("<app-root></app-root>")
"""


def _workspace(tmp_path: Path, *, fail: bool) -> tuple[Path, str]:
    ws = tmp_path / "workspace"
    ws.mkdir()
    angular = {
        "projects": {"app": {"architect": {"build": {"options": {"outputPath": "dist/app"}}}}}
    }
    (ws / "angular.json").write_text(json.dumps(angular), encoding="utf-8")
    npx = tmp_path / "npx"
    npx.write_text(NPX.format(python=sys.executable, fail=fail), encoding="utf-8")
    npx.chmod(0o755)
    return ws, str(npx)


def test_the_build_is_a_development_build_without_source_maps(tmp_path: Path) -> None:
    ws, npx = _workspace(tmp_path, fail=False)
    built = build_app(ws, npx=npx, cache=tmp_path / "cache", log=tmp_path / "build.log")
    assert built == ws / "dist/app"
    argv = json.loads((ws / "argv.json").read_text(encoding="utf-8"))
    assert argv == ["ng", "build", "--configuration", "development", "--source-map=false"]


def test_a_failed_build_is_exit_1_with_the_end_of_its_output(tmp_path: Path) -> None:
    ws, npx = _workspace(tmp_path, fail=True)
    with pytest.raises(PreviewFailed) as failed:
        build_app(ws, npx=npx, cache=tmp_path / "cache", log=tmp_path / "build.log")
    assert failed.value.exit_code == 1
    assert "--source-map=false` exited 1" in str(failed.value)
    assert "ERROR: the compilation failed" in str(failed.value)


HANGS = """#!{python}
import os, pathlib, subprocess, sys, time
# like npx: the real build (`ng`) is a child process; it records its pid and hangs
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
pathlib.Path("child.pid").write_text(str(child.pid))
time.sleep(600)
"""


def test_a_build_past_its_time_leaves_no_process_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws, npx = _workspace(tmp_path, fail=False)
    Path(npx).write_text(HANGS.format(python=sys.executable), encoding="utf-8")
    monkeypatch.setattr("averos_ci.preview.build.BUILD_TIMEOUT_S", 3)
    with pytest.raises(PreviewFailed) as failed:
        build_app(ws, npx=npx, cache=tmp_path / "cache", log=tmp_path / "build.log")
    assert "ran longer than 3 s" in str(failed.value)
    pid = int((ws / "child.pid").read_text(encoding="utf-8"))
    # killed with its group: gone within moments (not left running for the build's 30 minutes)
    assert gone_within(pid, 10), "the build's own child (ng) outlived the timeout"
