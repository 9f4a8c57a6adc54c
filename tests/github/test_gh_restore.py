"""What a resumed apply takes back from the (untrusted) state branch's partial workspace."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from averos_ci.config import default_config
from averos_ci.statebranch.restore import restore_generated


def test_only_generated_regular_files_under_the_workspace_are_restored(tmp_path: Path) -> None:
    repo, outside = tmp_path / "repo", tmp_path / "outside"
    (repo / "workspace").mkdir(parents=True)
    outside.mkdir()
    (repo / "workspace" / "escape").symlink_to(outside, target_is_directory=True)
    (repo / "keep.txt").write_text("keep\n")
    config = replace(default_config(repo), workspace_root=repo / "workspace")
    snap = tmp_path / "snap"
    files = {
        "workspace/src/app.ts": "generated\n",
        "workspace/escape/owned.txt": "through a symlink\n",
        "averos.manifest.yaml": "planted\n",
        ".github/workflows/x.yml": "on: push\n",
        "workspace/.git/hooks/post-checkout": "#!/bin/sh\n",
    }
    for rel, text in files.items():
        (snap / "files" / rel).parent.mkdir(parents=True, exist_ok=True)
        (snap / "files" / rel).write_text(text)
    (snap / "files" / "workspace" / "link").symlink_to("/etc/hostname")
    (snap / "deleted.json").write_text(json.dumps(["keep.txt", "../outside", "workspace/nope"]))

    assert restore_generated(snap, repo_root=repo, config=config) == 1
    assert (repo / "workspace" / "src" / "app.ts").read_text() == "generated\n"
    assert list(outside.iterdir()) == []
    assert not (repo / "averos.manifest.yaml").exists()
    assert not (repo / ".github").exists() and not (repo / "workspace" / ".git").exists()
    assert not (repo / "workspace" / "link").exists()
    assert (repo / "keep.txt").exists()
