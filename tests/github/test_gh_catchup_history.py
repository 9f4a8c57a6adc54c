"""Which commits a catch-up looks at, on a real repository: first-parent, manifest changes
only, the head always; and where it starts (the newest run record)."""

from __future__ import annotations

import json
from pathlib import Path

import git
import pytest

from averos_ci.statebranch.history import first_parent_steps, last_applied
from tests.github.gh_world import git as run_git

MANIFEST = "todoapp.manifest.yaml"


def commit(repo: Path, files: dict[str, str], message: str) -> str:
    for rel, text in files.items():
        (repo / rel).write_text(text, encoding="utf-8")
    run_git(repo, "add", "-A")
    run_git(repo, "commit", "-q", "-m", message)
    return run_git(repo, "rev-parse", "HEAD")


def test_steps_are_first_parent_manifest_changes_and_the_head(tmp_path: Path) -> None:
    root = tmp_path / "r"
    root.mkdir()
    run_git(root, "init", "-q", "-b", "main")
    c0 = commit(root, {MANIFEST: "v0\n"}, "initial")
    c1 = commit(root, {MANIFEST: "v1\n"}, "A")
    c2 = commit(root, {"README.md": "generated app\n"}, "commit-back [skip ci]")
    # a merge whose side branch changed the manifest twice: one step (the merge), not two
    run_git(root, "checkout", "-q", "-b", "side")
    commit(root, {MANIFEST: "v2-draft\n"}, "draft")
    commit(root, {MANIFEST: "v2\n"}, "final")
    run_git(root, "checkout", "-q", "main")
    run_git(root, "merge", "-q", "--no-ff", "-m", "merge B", "side")
    c3 = run_git(root, "rev-parse", "HEAD")
    c4 = commit(root, {"README.md": "docs\n"}, "docs")
    repo = git.Repo(root)
    assert first_parent_steps(repo, since=c0, head=c4, rel=MANIFEST) == [c1, c3, c4]
    assert first_parent_steps(repo, since=c1, head=c3, rel=MANIFEST) == [c3]
    assert first_parent_steps(repo, since=c1, head=c2, rel=MANIFEST) == [c2]  # the head only
    # never applied: from the root (the first commit adds the manifest)
    assert first_parent_steps(repo, since=None, head=c3, rel=MANIFEST) == [c0, c1, c3]


@pytest.mark.parametrize("rel", ["sub dir/ü.manifest.yaml", "new\nline.yaml", "-dash.yaml"])
def test_steps_of_any_manifest_path(tmp_path: Path, rel: str) -> None:
    root = tmp_path / "r"
    (root / "sub dir").mkdir(parents=True)
    run_git(root, "init", "-q", "-b", "main")
    c0 = commit(root, {rel: "v0\n"}, "initial")
    commit(root, {"README.md": "app\n"}, "commit-back")
    c2 = commit(root, {rel: "v1\n"}, "A")
    c3 = commit(root, {"README.md": "docs\n"}, "docs")
    assert first_parent_steps(git.Repo(root), since=None, head=c3, rel=rel) == [c0, c2, c3]


def test_the_newest_run_record_is_where_the_state_was_applied_from(tmp_path: Path) -> None:
    assert last_applied(tmp_path) is None
    runs = tmp_path / "runs"
    runs.mkdir()
    for stamp, sha in (("2026-01-01T000001.000Z", "a" * 40), ("2026-01-02T000001.000Z", "b" * 40)):
        (runs / f"{stamp}-{sha[:12]}.json").write_text(
            json.dumps({"formatVersion": 1, "sha": sha}), encoding="utf-8"
        )
    (runs / "2026-01-03T000001.000Z-corrupt.json").write_text("{", encoding="utf-8")
    assert last_applied(tmp_path) == "b" * 40
