"""A rename (``renamedFrom``) with the real Averos schematics (issue 21 "Proof"): the library's
Book entity becomes Volume while the user has edited Book's generated model. The edit follows
the model into its renamed file, the old files are gone, and the application compiles.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from averos_ci.cli import run_cli
from tests.scenarios.angular.applied import (
    LIBRARY_WITH_SHELF,
    ApplyProject,
    ng_build,
    with_user_line,
)

pytestmark = [pytest.mark.angular, pytest.mark.slow]

OLD, NEW = "src/app/model/book.ts", "src/app/model/volume.ts"
USER_LINE = "    myHandEditedNote?: string; // USER HAND EDIT\n"


def _renamed(text: str) -> str:
    """Book -> Volume everywhere the manifest names the entity (its members, the composite, the
    CRUD use case, the labels); its service and the use case keep their names."""
    assert "  - name: Book\n" in text
    text = text.replace("  - name: Book\n", "  - name: Volume\n    renamedFrom: Book\n")
    for old, new in (
        ("ename: Book,", "ename: Volume,"),
        ("ename: Book\n", "ename: Volume\n"),
        ("targetEntity: Book", "targetEntity: Volume"),
        ("localeID: book.", "localeID: volume."),
    ):
        assert old in text, old
        text = text.replace(old, new)
    return text


def test_a_renamed_entity_keeps_the_users_edit_in_its_renamed_model_and_builds(
    applied_project: ApplyProject,
    angular_env: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    project = applied_project(LIBRARY_WITH_SHELF, tmp_path / "p")
    config = str(project / "averos.config.json")
    ws = project / "workspace"
    model = ws / OLD
    model.write_bytes(with_user_line(model.read_bytes().decode(), USER_LINE).encode())
    manifest = project / "library.manifest.yaml"
    manifest.write_text(_renamed(manifest.read_text()))
    capsys.readouterr()
    assert run_cli(["plan", "--config", config, "--detailed-exitcode"]) == 4
    out = capsys.readouterr().out
    assert f"→ {NEW} (renamed, " in out and "your edits will be merged" in out
    assert run_cli(["run", "--config", config]) == 0
    assert not model.exists()
    assert not (ws / "src/app/view/book").exists()
    volume = (ws / NEW).read_bytes().decode()
    assert "export class Volume" in volume
    assert volume.count(USER_LINE) == 1  # the edit, byte for byte, in the renamed file
    routing = (ws / "src/app/app-routing.module.ts").read_text()
    assert "CreateVolumeComponent" in routing and "CreateBookComponent" not in routing
    ng_build(ws, angular_env)
