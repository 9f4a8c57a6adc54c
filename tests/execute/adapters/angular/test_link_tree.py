"""``link_tree``: a template's ``node_modules`` as hard links, or a copy where links are
impossible. A container's volumes are such a place: two bind mounts of one file system still
refuse a hard link between them (EXDEV), as between ``/cache`` and ``/github/workspace``."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from averos_ci.execute.adapters.angular.template.workspace import link_tree
from tests.conftest import unavailable


def _tree(root: Path) -> Path:
    src = root / "node_modules"
    (src / "pkg" / "lib").mkdir(parents=True)
    (src / "pkg" / "package.json").write_text('{"name": "pkg"}\n')
    (src / "pkg" / "lib" / "index.js").write_text("module.exports = 1;\n")
    (src / ".bin").mkdir()
    (src / ".bin" / "pkg").symlink_to("../pkg/lib/index.js")
    return src


def _files(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): os.readlink(p) if p.is_symlink() else p.read_text()
        for p in sorted(root.rglob("*"))
        if p.is_symlink() or p.is_file()
    }


@pytest.mark.parametrize("with_cp", [True, False], ids=["cp", "python"])
def test_on_one_mount_the_files_are_hard_links(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, with_cp: bool
) -> None:
    if not with_cp:
        monkeypatch.setenv("PATH", str(tmp_path / "no-tools"))
    src = _tree(tmp_path / "template")
    dst = tmp_path / "ws" / "node_modules"
    dst.parent.mkdir()
    assert link_tree(src, dst) == "linked"
    assert _files(dst) == _files(src)
    index = "pkg/lib/index.js"
    assert (dst / index).stat().st_ino == (src / index).stat().st_ino


@pytest.fixture
def other_mount(tmp_path: Path) -> Iterator[Path]:
    """``tmp_path/volume``: a bind mount of ``tmp_path/backing`` (same file system)."""
    if os.geteuid() != 0:
        unavailable("a bind mount needs root")
    mount, umount = shutil.which("mount"), shutil.which("umount")  # before a test empties PATH
    if mount is None or umount is None:
        unavailable("mount and umount are not on PATH")
    backing, volume = tmp_path / "backing", tmp_path / "volume"
    backing.mkdir()
    volume.mkdir()
    subprocess.run([mount, "--bind", str(backing), str(volume)], check=True)
    try:
        yield volume
    finally:
        subprocess.run([umount, "-l", str(volume)], check=False)


@pytest.mark.parametrize("with_cp", [True, False], ids=["cp", "python"])
def test_across_mounts_it_is_a_whole_copy(
    tmp_path: Path, other_mount: Path, monkeypatch: pytest.MonkeyPatch, with_cp: bool
) -> None:
    if not with_cp:
        monkeypatch.setenv("PATH", str(tmp_path / "no-tools"))
    src = _tree(tmp_path / "template")
    dst = other_mount / "node_modules"
    with pytest.raises(OSError):  # the premise: no hard link between the two mounts
        os.link(src / "pkg" / "package.json", other_mount / "probe")
    assert link_tree(src, dst) == "copied"
    assert _files(dst) == _files(src)
    index = "pkg/lib/index.js"
    assert (dst / index).stat().st_ino != (src / index).stat().st_ino
    assert (dst / ".bin" / "pkg").is_symlink()
