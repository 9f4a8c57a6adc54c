"""Committing through a scratch index in bulk (averos_ci/statebranch/staging.py): the trees
and commit ids are those of one git call per file, for every path git accepts."""

from __future__ import annotations

import os
from pathlib import Path

import git
import pytest

from averos_ci.statebranch import staging
from averos_ci.statebranch.state_branch import StateBranch
from tests.conftest import git as run_git

# paths that a line-, space-, dash- or quote-based protocol would get wrong
AWKWARD = [
    "plain.txt",
    "with space.ts",
    "-leading-dash",
    "--double",
    "unicodé/ñame.json",
    'quote"d',
    "back\\slash",
    "new\nline",
    "tab\there",
    "trailing-cr\r",
    "comma,in,name",
    "deep/a/b/c/d.txt",
]
FIXED_DATE = {"GIT_AUTHOR_DATE": "1700000000 +0000", "GIT_COMMITTER_DATE": "1700000000 +0000"}


@pytest.fixture
def repo(git_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name, value in FIXED_DATE.items():  # the same input gives the same commit id
        monkeypatch.setenv(name, value)
    (git_dir / "keep.txt").write_text("kept\n")
    (git_dir / "gone.txt").write_text("removed\n")
    (git_dir / "dir").mkdir()
    (git_dir / "dir" / "old").write_text("old\n")
    (git_dir / "-old dash").write_text("dash\n")
    run_git(git_dir, "add", "-A")
    run_git(git_dir, "commit", "-q", "-m", "base")
    return git_dir


def files(root: Path, names: list[str]) -> dict[str, Path]:
    out = {}
    for i, name in enumerate(names):
        path = root.joinpath(*name.split("/"))
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(f"{i}: {name}\n".encode())
        out[name] = path
    return out


def tree(repo: Path, commit: str) -> list[tuple[str, str, bytes]]:
    """(mode, path, content) of every file of ``commit``."""
    g = git.Repo(repo).git
    entries = []
    listing = g.ls_tree("-r", "-z", commit, stdout_as_string=False)  # bytes: a "\r" stays
    for line in filter(None, listing.split(b"\0")):
        info, path = line.decode().split("\t", 1)
        mode, _, sha = info.split()
        data = g.cat_file("blob", sha, stdout_as_string=False, strip_newline_in_stdout=False)
        entries.append((mode, path, data))
    return entries


def per_file_commit_paths(
    sb: StateBranch, *, parent: str, changes: dict[str, Path | None], message: str
) -> str:
    """The code before the batching: a hash-object and an update-index call per file."""
    with sb._scratch_index() as env:
        g = sb.repo.git
        g.read_tree(parent, env=env)
        for rel, file in sorted(changes.items()):
            if file is None:
                g.update_index("--force-remove", "--", rel, env=env)
                continue
            if file.is_symlink():
                continue
            sha = str(
                g.hash_object("-w", "--no-filters", "--", str(file.resolve()), env=env)
            ).strip()
            mode = "100755" if os.access(file, os.X_OK) else "100644"
            g.update_index("--add", "--cacheinfo", f"{mode},{sha},{rel}", env=env)
        tree_id = str(g.write_tree(env=env)).strip()
        return str(g.commit_tree(tree_id, "-p", parent, "-m", message, env=env)).strip()


def per_file_commit(
    sb: StateBranch, *, parent: str | None, subdir: str, src: Path, message: str
) -> str:
    src = src.resolve()
    with sb._scratch_index() as env:
        g = sb.repo.git
        g.read_tree(parent or "--empty", env=env)
        g.rm("-r", "--cached", "--quiet", "--ignore-unmatch", "--", subdir, env=env)
        for file in sorted(p for p in src.rglob("*") if p.is_file()):
            rel = f"{subdir}/{file.relative_to(src).as_posix()}"
            sha = str(g.hash_object("-w", "--no-filters", "--", str(file), env=env)).strip()
            g.update_index("--add", "--cacheinfo", f"100644,{sha},{rel}", env=env)
        tree_id = str(g.write_tree(env=env)).strip()
        args = [tree_id, "-m", message] + (["-p", parent] if parent else [])
        return str(g.commit_tree(*args, env=env)).strip()


def test_commit_paths_stages_awkward_paths_as_one_call_per_file_did(
    repo: Path, tmp_path: Path
) -> None:
    sb = StateBranch(repo)
    parent = run_git(repo, "rev-parse", "HEAD").strip()
    changes: dict[str, Path | None] = {**files(tmp_path / "gen", AWKWARD)}
    changes["plain.txt"].chmod(0o755)  # type: ignore[union-attr]
    (tmp_path / "gen" / "link").symlink_to(tmp_path / "gen" / "plain.txt")
    changes["link"] = tmp_path / "gen" / "link"  # never committed through
    changes["gone.txt"] = None
    changes["-old dash"] = None
    changes["never/there"] = None
    commit = sb.commit_paths(parent=parent, changes=changes, message="gen")

    got = tree(repo, commit)
    expected = sorted(
        [("100644", name, f"{i}: {name}\n".encode()) for i, name in enumerate(AWKWARD)]
        + [("100644", "dir/old", b"old\n"), ("100644", "keep.txt", b"kept\n")],
        key=lambda e: e[1].encode(),
    )
    expected[[e[1] for e in expected].index("plain.txt")] = (
        "100755",
        "plain.txt",
        b"0: plain.txt\n",
    )
    assert got == expected
    assert commit == per_file_commit_paths(sb, parent=parent, changes=changes, message="gen")


def test_commit_replaces_the_folder_as_one_call_per_file_did(repo: Path, tmp_path: Path) -> None:
    sb = StateBranch(repo)
    parent = run_git(repo, "rev-parse", "HEAD").strip()
    src = tmp_path / "src"
    files(src, AWKWARD)
    (src / "plain.txt").chmod(0o755)  # the state branch holds plain files only
    commit = sb.commit(parent=parent, subdir="dir", src=src, message="state")

    names = [path for _, path, _ in tree(repo, commit)]
    assert "dir/old" not in names
    assert {f"dir/{name}" for name in AWKWARD} <= set(names)
    assert {mode for mode, _, _ in tree(repo, commit)} == {"100644"}
    assert commit == per_file_commit(sb, parent=parent, subdir="dir", src=src, message="state")
    orphan = sb.commit(parent=None, subdir="p", src=src, message="first")
    assert orphan == per_file_commit(sb, parent=None, subdir="p", src=src, message="first")


def test_many_files_are_staged_over_several_calls_in_the_same_tree(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(staging, "ARGV_BUDGET", 300)  # a few entries per update-index call
    sb = StateBranch(repo)
    parent = run_git(repo, "rev-parse", "HEAD").strip()
    names = [f"-f {i:03d}/ü {i}" for i in range(60)]
    changes: dict[str, Path | None] = {**files(tmp_path / "gen", names)}
    changes.update({"gone.txt": None, "-old dash": None, "dir/old": None})
    commit = sb.commit_paths(parent=parent, changes=changes, message="many")

    assert [path for _, path, _ in tree(repo, commit)] == [*sorted(names), "keep.txt"]
    assert commit == per_file_commit_paths(sb, parent=parent, changes=changes, message="many")


@pytest.mark.parametrize(
    "rel",
    [".git/config", "a/../../outside", "dir/old/under-a-file", "dir"],
    ids=["into .git", "outside", "file as folder", "folder as file"],
)
def test_a_path_one_call_per_file_refused_is_still_refused(
    repo: Path, tmp_path: Path, rel: str
) -> None:
    sb = StateBranch(repo)
    parent = run_git(repo, "rev-parse", "HEAD").strip()
    changes: dict[str, Path | None] = {rel: files(tmp_path, ["x"])["x"]}
    with pytest.raises(git.GitCommandError):
        per_file_commit_paths(sb, parent=parent, changes=changes, message="m")
    with pytest.raises(git.GitCommandError):  # never a commit without the file
        sb.commit_paths(parent=parent, changes=changes, message="m")


def test_a_folder_removed_for_a_file_of_its_name_is_replaced(repo: Path, tmp_path: Path) -> None:
    sb = StateBranch(repo)
    parent = run_git(repo, "rev-parse", "HEAD").strip()
    file = files(tmp_path, ["x"])["x"]
    commit = sb.commit_paths(parent=parent, changes={"dir": file, "dir/old": None}, message="m")
    assert [path for _, path, _ in tree(repo, commit)] == [
        "-old dash",
        "dir",
        "gone.txt",
        "keep.txt",
    ]


def test_a_generated_workspace_is_committed_with_a_few_git_processes(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sb = StateBranch(repo)
    parent = run_git(repo, "rev-parse", "HEAD").strip()
    changes: dict[str, Path | None] = {
        **files(tmp_path / "gen", [f"src/f{i}.ts" for i in range(200)])
    }
    trace = tmp_path / "trace.log"
    monkeypatch.setenv("GIT_TRACE", str(trace))  # each git process logs its command once
    sb.commit_paths(parent=parent, changes=changes, message="gen")
    sb.commit(parent=parent, subdir="proj", src=tmp_path / "gen", message="state")

    launched = [ln for ln in trace.read_text().splitlines() if "trace: built-in: git " in ln]
    assert 0 < len(launched) <= 40, launched  # 11 now; one pair per file was 800
