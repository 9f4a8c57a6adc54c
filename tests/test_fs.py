"""Atomic writes keep file modes and leave no temp files."""

from __future__ import annotations

import os
from pathlib import Path

from averos_ci._fs import atomic_write_text


def test_new_file_gets_the_umask_mode_and_replacing_keeps_the_old_mode(tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    old = os.umask(0o022)
    try:
        atomic_write_text(path, "one")
    finally:
        os.umask(old)
    assert path.stat().st_mode & 0o777 == 0o644
    path.chmod(0o640)
    atomic_write_text(path, "two")
    assert path.read_text() == "two"
    assert path.stat().st_mode & 0o777 == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["state.json"]
