"""Grafting a project's folder into another commit's tree in-process gives exactly the tree git
itself makes (read-tree, rm, read-tree --prefix, write-tree): same object ids, git's entry
order (a folder sorts as if its name ended with "/"), no empty folder kept, a valid repository."""

from __future__ import annotations

from pathlib import Path

import git
import pytest

from averos_ci.statebranch.graft import commit_tree, graft
from tests.github.gh_world import git as run_git

FILES = {  # names chosen to sort differently as files and as folders ("p0" < "p0-x" < "p0/")
    "apps/p0/state.json": "0",
    "apps/p0-x/state.json": "x",
    "apps/p0.json": "f",
    "apps/p1/runs/r.json": "1",
    "default/state.json": "d",
}


def repo_with(tmp_path: Path, files: dict[str, str]) -> tuple[git.Repo, str]:
    root = tmp_path / "repo"
    run_git(tmp_path, "init", "-q", str(root))
    run_git(root, "config", "user.name", "Test")
    run_git(root, "config", "user.email", "test@example.com")
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    run_git(root, "add", "-A")
    run_git(root, "commit", "-q", "-m", "tip")
    return git.Repo(root), run_git(root, "rev-parse", "HEAD")


def by_git(root: Path, tip: str, subdir: str, folder: str | None) -> str:
    """The tree git's index route makes (what StateBranch.replant did before)."""
    env = {"GIT_INDEX_FILE": str(root / ".git" / "scratch-index")}
    g = git.Repo(root).git
    g.read_tree(tip, env=env)
    g.rm("-r", "--cached", "--quiet", "--ignore-unmatch", "--", subdir, env=env)
    if folder is not None:
        g.read_tree(f"--prefix={subdir}/", folder, env=env)
    return str(g.write_tree(env=env)).strip()


@pytest.mark.parametrize(
    ("subdir", "source"),
    [
        ("apps/p0", "apps/p1"),  # replaced by another folder's content
        ("apps/p0-", "apps/p1"),  # a new folder between existing names
        ("apps/p0", None),  # removed
        ("apps/p1", None),  # removed, and its parent keeps other entries
        ("new/deep/proj", "default"),  # new parents created
        ("default", None),  # a top-level folder removed
    ],
)
def test_graft_makes_the_tree_git_makes(tmp_path: Path, subdir: str, source: str | None) -> None:
    repo, tip = repo_with(tmp_path, FILES)
    root = repo.commit(tip).tree
    folder = root / source if source else None
    assert folder is None or isinstance(folder, git.Tree)
    made = graft(repo, root, subdir, folder)
    expected = by_git(
        Path(str(repo.working_tree_dir)), tip, subdir, folder.hexsha if folder else None
    )
    assert made.hexsha == expected


def test_the_last_folder_removed_leaves_an_empty_root_and_a_valid_commit(tmp_path: Path) -> None:
    repo, tip = repo_with(tmp_path, {"only/p/state.json": "1"})
    made = graft(repo, repo.commit(tip).tree, "only/p", None)
    where = Path(str(repo.working_tree_dir))
    assert made.hexsha == run_git(where, "hash-object", "-t", "tree", "/dev/null")  # empty
    commit = commit_tree(
        repo,
        made,
        message="averos-ci: only/p: gone",
        parent=tip,
        identity={
            "GIT_AUTHOR_NAME": "Bot",
            "GIT_AUTHOR_EMAIL": "bot@example.com",
            "GIT_COMMITTER_NAME": "Bot",
            "GIT_COMMITTER_EMAIL": "bot@example.com",
        },
    )
    assert run_git(where, "log", "-1", "--format=%s|%P|%an <%ae>|%cn", commit) == (
        f"averos-ci: only/p: gone|{tip}|Bot <bot@example.com>|Bot"
    )
    assert run_git(where, "cat-file", "-p", commit).endswith("\n\naveros-ci: only/p: gone")
    run_git(where, "fsck", "--strict", "--no-dangling")
