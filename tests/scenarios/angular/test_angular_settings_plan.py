"""What ``averos-ci plan`` says the Angular adapter will not apply, on the manifests held in
this repository (issue 41): the README's ToDo example and the library app flag nothing; the
Averos golden manifest (tests/data/averos/todoapp-manifest.json) flags only what
@wiforge/averos 1.4.1 has no place for, each line naming the runtime file that shows it.

No Angular here: the plan predicts from the manifest alone (unapplied.py), before approval.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from averos_ci.cli import run_cli
from tests.conftest import copy_example

REPO = Path(__file__).resolve().parents[3]
GOLDEN = REPO / "tests" / "data" / "averos" / "todoapp-manifest.json"
LIBRARY = Path(__file__).parent / "data" / "library.manifest.yaml"
RUNTIME_FILE = "node_modules/@wiforge/averos/fesm2020/wiforge-averos.mjs"


def _flagged(project: Path, capsys: pytest.CaptureFixture[str], *manifest: str) -> list[str]:
    config = str(project / "averos.config.json")
    state = str(project / "no-state.json")
    assert run_cli(["plan", "--config", config, "--state", state, *manifest]) == 0
    out = capsys.readouterr().out
    return [line.strip() for line in out.splitlines() if line.lstrip().startswith("! ")]


def test_the_example_and_the_library_app_flag_no_setting(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = copy_example(tmp_path / "project")
    assert _flagged(project, capsys) == []
    # providerType: backend is 1.4.1's own authentication (the /auth/* API of beURL)
    assert _flagged(project, capsys, "--manifest", str(LIBRARY)) == []


def test_the_golden_manifest_flags_only_what_the_runtime_has_no_place_for(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = copy_example(tmp_path / "project")
    lines = _flagged(project, capsys, "--manifest", str(GOLDEN))
    assert lines, "the golden manifest's Google and Dummy providers have no place in 1.4.1"
    nodes = {line.split(": ")[0].removeprefix("! ") for line in lines}
    assert nodes == {
        "auth:DummyAuthProvider",
        "auth:GoogleAuthProvider",
        "auth:http-auth-config",
    }, nodes
    # maxRefreshRetries: 2 and unauthorizedRedirect: /login; 1.4.1 refreshes once, then its
    # logoutUser() navigates to '/' (which the routes send on to /public)
    reason = (
        f"httpAuthConfig: no place in @wiforge/averos 1.4.1: its ErrorInterceptorService "
        f"({RUNTIME_FILE}) refreshes the token once on a 401 (handle401Error), then "
        "AuthenticationService.logoutUser() navigates to '/': neither the count nor the "
        "target can be configured (the target could only move by overriding "
        "AuthenticationService, providedIn root, whose logoutUser() is also the user's own "
        "logout: averos-ci leaves both as they are)"
    )
    assert [ln for ln in lines if ln.startswith("! auth:http-auth-config")] == [
        f"! auth:http-auth-config: {setting}: {reason}"
        for setting in ("maxRefreshRetries", "unauthorizedRedirect")
    ]
    # every line says why and names the runtime file that proves it
    assert all(RUNTIME_FILE in line for line in lines), lines
